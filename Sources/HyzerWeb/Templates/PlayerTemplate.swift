/// `/players/P`: a player's completed rounds and their trend, drawn on the server as SVG.
enum PlayerTemplate {
    static let page = """
        {{> head}}
        <h1>{{name}}</h1>
        <p class="meta">{{roundCount}} completed rounds{{#average}} · average {{average}}{{/average}}</p>
        {{#chart}}
        <h2 id="trend-title">Trend</h2>
        {{> chart}}
        {{/chart}}
        <h2>Rounds</h2>
        {{#hasRounds}}
        <table>
        <caption class="sr-only">Completed rounds of {{name}}, newest first</caption>
        <thead><tr><th scope="col">Finished</th><th scope="col">Course</th><th scope="col" class="num">Pos</th><th scope="col" class="num">Score</th></tr></thead>
        <tbody>
        {{#rounds}}
        <tr><td>{{day}}</td><td><a href="{{url}}">{{course}}</a></td><td class="num">{{position}}</td><td class="num score tier-{{tier}}">{{formatted}}</td></tr>
        {{/rounds}}
        </tbody>
        </table>
        {{/hasRounds}}
        {{^rounds}}<p class="empty">No completed round yet.</p>{{/rounds}}
        {{> foot}}
        """

    /// The trend: one point per completed round, oldest on the left, with a line at par.
    static let chart = """
        <svg class="chart" viewBox="0 0 {{width}} {{height}}" role="img" aria-labelledby="trend-title trend-desc">
        <desc id="trend-desc">{{description}}</desc>
        <line x1="{{left}}" x2="{{right}}" y1="{{parY}}" y2="{{parY}}" stroke="#b4c2b9" stroke-dasharray="4 4"/>
        <text x="{{right}}" y="{{parLabelY}}" fill="#b4c2b9" font-size="22" text-anchor="end">par</text>
        {{#gridLabels}}<text x="{{x}}" y="{{y}}" fill="#b4c2b9" font-size="22" text-anchor="end">{{text}}</text>{{/gridLabels}}
        <polyline points="{{polyline}}" fill="none" stroke="#7cc4ff" stroke-width="4" stroke-linejoin="round"/>
        {{#points}}<circle cx="{{x}}" cy="{{y}}" r="8" class="tier-{{tier}}" fill="currentColor"><title>{{label}}</title></circle>{{/points}}
        </svg>
        """
}
