/// `/history`: every completed round, newest first.
enum HistoryTemplate {
    static let page = """
        {{> head}}
        <h1>History</h1>
        {{#hasEntries}}
        <table>
        <caption class="sr-only">Completed rounds, newest first</caption>
        <thead><tr><th scope="col">Finished</th><th scope="col">Course</th><th scope="col" class="num">Players</th><th scope="col">Winner</th></tr></thead>
        <tbody>
        {{#entries}}
        <tr><td>{{day}}</td><td><a href="{{url}}">{{course}}</a></td><td class="num">{{players}}</td><td>{{winners}}</td></tr>
        {{/entries}}
        </tbody>
        </table>
        {{/hasEntries}}
        {{^entries}}<p class="empty">No finished round yet.</p>{{/entries}}
        {{> foot}}
        """
}
