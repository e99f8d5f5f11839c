import HyzerDomain
import HyzerKit

/// What the front page shows: rounds being played, and the latest finished ones.
struct IndexModel {
    struct Active {
        struct Entry {
            let url: String
            let course: String
            let players: Int
            let leader: String
            let statusText: String
        }
        let rounds: [Entry]
    }

    struct Recent {
        let rounds: [HistoryModel.Entry]
    }

    let title = "Rounds"
    let api: String
    let links: SiteLinks
    let active: Active?
    let recent: Recent?

    /// How many finished rounds the front page lists.
    static let recentCount = 5

    init(rounds: [RoundView], history: [HistoryEntry], links: SiteLinks = .live) {
        self.links = links
        api = links.roundsAPI
        let playing = rounds.filter { $0.evaluation.status != .completed }.map { view in
            let leaders = view.evaluation.standings.filter { $0.position == 1 && $0.holesPlayed > 0 }.map(\.name)
            return Active.Entry(
                url: links.round(view.round.id.lowercased), course: view.round.courseName, players: view.round.participants.count,
                leader: leaders.isEmpty ? "none yet" : leaders.joined(separator: ", "),
                statusText: LeaderboardModel.statusText(view.evaluation.status))
        }
        active = playing.isEmpty ? nil : Active(rounds: playing)
        let finished = history.prefix(Self.recentCount).map { HistoryModel.Entry($0, links: links) }
        recent = finished.isEmpty ? nil : Recent(rounds: finished)
    }
}

/// What `/history` shows: every completed round, newest first.
struct HistoryModel {
    struct Entry {
        let url: String
        let day: String
        let course: String
        let players: Int
        let winners: String

        init(_ entry: HistoryEntry, links: SiteLinks) {
            url = links.round(entry.round.description)
            day = DateText.day(entry.finishedAt)
            course = entry.course
            players = entry.players
            winners = entry.winners.joined(separator: ", ")
        }
    }

    let title = "History"
    let api: String
    let links: SiteLinks
    let entries: [Entry]
    let hasEntries: Bool

    init(_ history: [HistoryEntry], links: SiteLinks = .live) {
        self.links = links
        api = links.historyAPI
        entries = history.map { Entry($0, links: links) }
        hasEntries = !entries.isEmpty
    }
}
