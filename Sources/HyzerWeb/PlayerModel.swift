import Foundation
import HyzerDomain
import HyzerKit

/// What `/players/P` shows: the player's completed rounds, newest first, and their trend.
struct PlayerModel {
    struct Round {
        let url: String
        let day: String
        let course: String
        let position: Int
        let formatted: String
        let tier: String
    }

    let title: String
    let api: String
    let links = SiteLinks.live
    let name: String
    let roundCount: Int
    let average: String?
    let rounds: [Round]
    let hasRounds: Bool
    let chart: TrendChart?

    init(_ player: PlayerHistoryDocument) {
        name = player.name
        title = player.name
        api = "/api/players/\(player.id)"
        rounds = player.rounds.map { entry in
            Round(
                url: "/rounds/\(entry.round)", day: DateText.day(entry.finishedAt), course: entry.course, position: entry.position,
                formatted: entry.formatted, tier: ScoreTier(relativeToPar: entry.relativeToPar).rawValue)
        }
        roundCount = rounds.count
        hasRounds = !rounds.isEmpty
        let scores = player.rounds.map(\.relativeToPar)
        average = scores.isEmpty ? nil : Self.averageText(scores)
        chart = TrendChart(player.rounds.reversed())
    }

    /// The mean score against par, to one decimal ("+1.5", "E", "-0.3").
    static func averageText(_ scores: [Int]) -> String {
        let text = String(format: "%+.1f", Double(scores.reduce(0, +)) / Double(scores.count))
        return text == "+0.0" || text == "-0.0" ? "E" : text
    }
}
