/// Pages for what is not there (404) and for a store that cannot be read (500).
enum ErrorTemplate {
    static let page = """
        {{> head}}
        <h1>{{title}}</h1>
        <p>{{message}}</p>
        <p><a href="/">Back to the rounds</a></p>
        {{> foot}}
        """
}
