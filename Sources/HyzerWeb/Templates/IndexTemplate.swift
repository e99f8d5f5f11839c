/// `/`: rounds in progress, then the latest completed ones.
enum IndexTemplate {
    static let page = """
        {{> head}}
        <h1>Rounds</h1>
        <h2>In progress</h2>
        {{#active}}
        <ul class="cards">
        {{#rounds}}
        <li><a href="{{url}}">{{course}}</a><br><span class="meta">{{players}} players · leader {{leader}} · {{statusText}}</span></li>
        {{/rounds}}
        </ul>
        {{/active}}
        {{^active}}<p class="empty">No round is being played.</p>{{/active}}
        <h2>Recently finished</h2>
        {{#recent}}
        <ul class="cards">
        {{#rounds}}
        <li><a href="{{url}}">{{course}}</a><br><span class="meta">{{day}} · {{players}} players · won by {{winners}}</span></li>
        {{/rounds}}
        </ul>
        {{/recent}}
        {{^recent}}<p class="empty">No finished round yet.</p>{{/recent}}
        <p><a href="{{links.history}}">All finished rounds →</a></p>
        {{> foot}}
        """
}
