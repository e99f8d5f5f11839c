/// `/rounds/ID`: the live leaderboard. The `board` partial is also what the page's event stream
/// sends, so a page updates by swapping one element; without JavaScript it is a static page.
enum LeaderboardTemplates {
    static let page = """
        {{> head}}
        <h1>{{course}}</h1>
        <p class="meta">Round <code>{{shortID}}</code> · {{holeCount}} holes, par {{par}} · <span class="status status-{{status}}">{{statusText}}</span></p>
        <section aria-labelledby="board-title">
        <h2 id="board-title">Leaderboard</h2>
        <div id="board"{{#eventsURL}} data-events="{{eventsURL}}"{{/eventsURL}} aria-live="polite">
        {{> board}}
        </div>
        <p id="live" class="live" hidden>live</p>
        </section>
        <script>
        (function () {
          var board = document.getElementById("board"), live = document.getElementById("live");
          if (!window.EventSource || !board.dataset.events) return;
          var source = new EventSource(board.dataset.events);
          source.addEventListener("board", function (event) {
            board.innerHTML = event.data; live.hidden = false; live.className = "live on"; live.textContent = "live";
          });
          source.onerror = function () { live.hidden = false; live.className = "live off"; live.textContent = "reconnecting…"; };
        })();
        </script>
        {{> foot}}
        """

    static let board = """
        <table class="board">
        <caption class="sr-only">Standings, {{statusText}}</caption>
        <thead><tr><th scope="col">Pos</th><th scope="col"><span class="sr-only">Movement</span></th><th scope="col">Player</th>
        <th scope="col" class="num">Score</th><th scope="col" class="num">Thru</th><th scope="col" class="num hide-narrow">Strokes</th></tr></thead>
        <tbody>
        {{#rows}}
        <tr data-player="{{playerID}}" data-position="{{position}}">
        <td class="pos">{{positionText}}</td>
        <td class="move move-{{movement}}"><span aria-hidden="true">{{arrow}}</span><span class="sr-only">{{movementText}}</span></td>
        <td class="name"><a href="{{cardURL}}">{{name}}</a>{{#disputed}}<span class="disputed">{{disputed}} disputed</span>{{/disputed}}</td>
        <td class="num score tier-{{tier}}">{{scoreText}}</td>
        <td class="num">{{thru}}</td>
        <td class="num hide-narrow">{{strokes}}</td>
        </tr>
        {{/rows}}
        </tbody>
        </table>{{#hasLate}}
        <section class="late" aria-labelledby="late-title">
        <h3 id="late-title">Late scores, not counted</h3>
        <p>Written before the round was finished, these reached the organizer's device after the finish.</p>
        <ul>
        {{#late}}
        <li data-event="{{eventID}}">{{name}}, hole {{hole}}: {{strokes}} strokes. Count it on the organizer's device with <code>{{resolve}}</code></li>
        {{/late}}
        </ul>
        </section>{{/hasLate}}
        """
}
