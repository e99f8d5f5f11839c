import HyzerDomain
import HyzerKit

/// What the leaderboard templates show of one round.
struct LeaderboardModel {
    struct Row {
        let playerID: String
        let position: Int
        let positionText: String
        let movement: String
        let arrow: String
        let movementText: String
        let name: String
        let cardURL: String
        let scoreText: String
        let tier: String
        let thru: String
        let strokes: String
        let disputed: Int?
    }

    let title: String
    let course: String
    let id: String
    let shortID: String
    let holeCount: Int
    let par: Int
    let status: String
    let statusText: String
    let eventsURL: String?
    let api: String
    let links: SiteLinks
    let rows: [Row]
    /// Scores written before the finish that the finisher received after it: listed, not
    /// counted (docs/rules.md, "Late scores").
    let late: [LateScoreDocument]
    let hasLate: Bool

    init(_ view: RoundView, links: SiteLinks = .live) {
        let round = view.round
        let evaluation = view.evaluation
        id = round.id.lowercased
        shortID = String(id.prefix(8))
        course = round.courseName
        title = "\(course) leaderboard"
        holeCount = round.holeCount
        par = round.totalPar
        status = evaluation.status.rawValue
        statusText = Self.statusText(evaluation.status)
        eventsURL = links.events(id)
        api = links.roundAPI(id)
        self.links = links
        late = LateScoreDocument.all(view)
        hasLate = !late.isEmpty
        let gained = PositionMovement.placesGained(evaluation)
        let positions = evaluation.standings.filter { $0.holesPlayed > 0 }.map(\.position)
        rows = evaluation.standings.map { [id, holeCount] entry in
            let scored = entry.holesPlayed > 0
            let places = gained[entry.playerID] ?? 0
            let tied = positions.count { $0 == entry.position } > 1
            return Row(
                playerID: entry.playerID.description, position: entry.position,
                positionText: scored ? (tied ? "T\(entry.position)" : "\(entry.position)") : "–",
                movement: places > 0 ? "up" : places < 0 ? "down" : "same",
                arrow: places > 0 ? "▲\(places)" : places < 0 ? "▼\(-places)" : "",
                movementText: places > 0 ? "up \(places)" : places < 0 ? "down \(-places)" : "no change",
                name: entry.name, cardURL: links.card(id, entry.playerID),
                scoreText: scored ? entry.formatted : "–",
                tier: scored ? ScoreTier(relativeToPar: entry.relativeToPar).rawValue : "none",
                thru: entry.holesPlayed == holeCount ? "F" : scored ? "\(entry.holesPlayed)" : "–",
                strokes: scored ? "\(entry.totalStrokes)" : "–",
                disputed: entry.disputedHoles > 0 ? entry.disputedHoles : nil)
        }
    }

    static func statusText(_ status: RoundStatus) -> String {
        switch status {
        case .active: "in progress"
        case .awaitingFinalization: "awaiting the organizer"
        case .completed: "final"
        }
    }
}
