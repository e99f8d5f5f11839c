import Foundation

/// One completed round in `history` (docs/rules.md, "History").
public struct HistoryEntry: Codable, Hashable, Sendable {
    /// The round id, as lowercase UUID text.
    public var round: String
    /// The course's name when the round started.
    public var course: String
    /// The valid finish's clock reading, in milliseconds since the Unix epoch.
    public var finishedAt: UInt64
    /// The start op's clock reading, in milliseconds since the Unix epoch.
    public var startedAt: UInt64
    /// The number of participants.
    public var players: Int
    /// Names of the entries at position 1 of the final standings, in standings order. When
    /// nobody scored (a forced finish), every participant is at position 1.
    public var winners: [String]
    /// The final standings, when requested; otherwise `nil` and absent from JSON.
    public var standings: [StandingsEntry]?

    /// An entry with every field given; `History.entries(_:includeStandings:)` builds them.
    public init(
        round: String, course: String, finishedAt: UInt64, startedAt: UInt64, players: Int, winners: [String],
        standings: [StandingsEntry]?
    ) {
        self.round = round
        self.course = course
        self.finishedAt = finishedAt
        self.startedAt = startedAt
        self.players = players
        self.winners = winners
        self.standings = standings
    }
}

/// The history of completed rounds.
public enum History {
    /// One entry per completed round (one with a valid finish), newest first: by the finish's
    /// clock reading, then by round id (bytes, descending). Rounds without a valid finish are
    /// left out. The order of `rounds` does not matter.
    public static func entries(_ rounds: [(Round, RoundEvaluation)], includeStandings: Bool) -> [HistoryEntry] {
        var completed: [(round: Round, evaluation: RoundEvaluation, finish: RoundFinish)] = []
        for (round, evaluation) in rounds {
            guard let finish = evaluation.finish else { continue }
            completed.append((round, evaluation, finish))
        }
        let newestFirst = completed.sorted { lhs, rhs in
            if lhs.finish.createdAt != rhs.finish.createdAt { return lhs.finish.createdAt > rhs.finish.createdAt }
            return CanonicalOrder.precedes(rhs.round.id, lhs.round.id)
        }
        return newestFirst.map { round, evaluation, finish in
            HistoryEntry(
                round: CanonicalOrder.text(round.id), course: round.courseName,
                finishedAt: finish.createdAt.physicalMilliseconds,
                startedAt: round.startedAt.physicalMilliseconds, players: evaluation.participants.count,
                winners: evaluation.standings.filter { $0.position == 1 }.map(\.name),
                standings: includeStandings ? evaluation.standings : nil
            )
        }
    }
}
