import Foundation

/// One completed round in `history` (docs/rules.md, "History").
public struct HistoryEntry: Codable, Hashable, Sendable {
    /// The round (its JSON: the lowercase UUID).
    public var round: RoundID
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
        round: RoundID, course: String, finishedAt: UInt64, startedAt: UInt64, players: Int, winners: [String],
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

/// A completed round's history entry (with its standings) and what orders it.
public struct CompletedRound: Hashable, Sendable {
    /// The entry, standings included.
    public var entry: HistoryEntry
    /// The round id.
    public var round: UUID
    /// The valid finish's clock reading.
    public var finishedAt: HLCTimestamp

    /// A completed round with its history entry.
    public init(entry: HistoryEntry, round: UUID, finishedAt: HLCTimestamp) {
        self.entry = entry
        self.round = round
        self.finishedAt = finishedAt
    }
}

/// The history of completed rounds.
public enum History {
    /// One entry per completed round (one with a valid finish), newest first: by the finish's
    /// clock reading, then by round id (bytes, descending). Rounds without a valid finish are
    /// left out. The order of `rounds` does not matter.
    public static func entries(_ rounds: [(Round, RoundEvaluation)], includeStandings: Bool) -> [HistoryEntry] {
        newestFirst(rounds.compactMap { completed($0, $1) }, includeStandings: includeStandings)
    }

    /// The entry of one round, standings included; `nil` when the round has no valid finish.
    public static func completed(_ round: Round, _ evaluation: RoundEvaluation) -> CompletedRound? {
        guard let finish = evaluation.finish else { return nil }
        let entry = HistoryEntry(
            round: RoundID(round.id), course: round.courseName,
            finishedAt: finish.createdAt.physicalMilliseconds,
            startedAt: round.startedAt.physicalMilliseconds, players: evaluation.participants.count,
            winners: evaluation.standings.filter { $0.position == 1 }.map(\.name),
            standings: evaluation.standings
        )
        return CompletedRound(entry: entry, round: round.id, finishedAt: finish.createdAt)
    }

    /// The entries of `completed`, newest first (see `entries(_:includeStandings:)`); the order
    /// of `completed` does not matter.
    public static func newestFirst(_ completed: [CompletedRound], includeStandings: Bool) -> [HistoryEntry] {
        completed.sorted { lhs, rhs in
            if lhs.finishedAt != rhs.finishedAt { return lhs.finishedAt > rhs.finishedAt }
            return CanonicalOrder.precedes(rhs.round, lhs.round)
        }
        .map { completed in
            var entry = completed.entry
            if !includeStandings { entry.standings = nil }
            return entry
        }
    }
}
