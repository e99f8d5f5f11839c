import HyzerDomain

/// Where a page's links point: the live server's routes (`serve --http`), or the files of the
/// published site (`serve --publish`, docs/web.md, "Published pages"), which are relative so the
/// pages work from any static host, under any prefix. Stored properties, so templates can read
/// them (`{{links.home}}`).
struct SiteLinks: Sendable {
    /// The front page.
    let home: String
    /// Every completed round.
    let history: String
    /// Whether the pages are static files that poll for their own newer version, rather than
    /// pages of the live server (whose leaderboard follows its event stream).
    let published: Bool

    /// The live server's routes.
    static let live = SiteLinks(home: "/", history: "/history", published: false)
    /// The published site's files, all in one directory.
    static let published = SiteLinks(home: "index.html", history: "history.html", published: true)

    /// The front page's JSON.
    var roundsAPI: String { published ? "rounds.json" : "/api/rounds" }
    /// The history's JSON.
    var historyAPI: String { published ? "history.json" : "/api/history" }

    /// A round's leaderboard.
    func round(_ id: String) -> String { published ? "round-\(Self.name(id)).html" : "/rounds/\(id)" }
    /// Its standings as JSON.
    func roundAPI(_ id: String) -> String { published ? "round-\(Self.name(id)).json" : "/api/rounds/\(id)/standings" }
    /// Its live events; none on the published site.
    func events(_ id: String) -> String? { published ? nil : "/rounds/\(id)/events" }
    /// A participant's card in a round.
    func card(_ round: String, _ player: ParticipantID) -> String {
        published ? "round-\(Self.name(round))-player-\(Self.name(player.description)).html" : "/rounds/\(round)/players/\(player)"
    }
    /// The card as JSON.
    func cardAPI(_ round: String, _ player: ParticipantID) -> String {
        published ? "round-\(Self.name(round))-player-\(Self.name(player.description)).json" : "/api/rounds/\(round)/players/\(player)"
    }

    /// An id as part of a file name: lowercase letters, digits and `-` only (a guest's
    /// `guest:<uuid>` becomes `guest-<uuid>`, since a `:` would read as a URL's scheme).
    static func name(_ id: String) -> String {
        String(id.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" })
    }
}
