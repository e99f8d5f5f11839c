/// `/rounds/ID/players/P`: one player's hole-by-hole card.
enum CardTemplate {
    static let page = """
        {{> head}}
        <p class="meta"><a href="{{roundURL}}">← {{course}} leaderboard</a></p>
        <h1>{{name}} <span class="score tier-{{tier}}">{{formatted}}</span></h1>
        <p class="meta">{{totalStrokes}} strokes on {{holesPlayed}} of {{holeCount}} holes</p>
        <table>
        <caption class="sr-only">Hole-by-hole card of {{name}}</caption>
        <thead><tr><th scope="col">Hole</th><th scope="col" class="num">Par</th><th scope="col" class="num">Strokes</th><th scope="col" class="num">Score</th><th scope="col"><span class="sr-only">Note</span></th></tr></thead>
        <tbody>
        {{#holes}}
        <tr><td>{{hole}}</td><td class="num">{{par}}</td><td class="num">{{strokesText}}</td><td class="num score tier-{{tier}}">{{formatted}}</td>
        <td>{{#disputed}}<span class="disputed">disputed</span>{{/disputed}}</td></tr>
        {{/holes}}
        </tbody>
        <tfoot><tr><th scope="row">Total</th><td class="num">{{totalPar}}</td><td class="num">{{totalStrokes}}</td><td class="num score tier-{{tier}}">{{formatted}}</td><td></td></tr></tfoot>
        </table>
        {{> foot}}
        """
}
