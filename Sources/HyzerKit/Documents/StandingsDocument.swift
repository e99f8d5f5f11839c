import HyzerDomain

/// A round's leaderboard as `standings --json` and the web's `/api/rounds/R/standings` print it.
public struct StandingsDocument: Codable, Hashable, Sendable {
    /// The round's id (its JSON: the lowercase UUID).
    public let round: RoundID
    /// The course's name when the round started.
    public let course: String
    /// Where the round is in its life (its JSON: `active`, `awaitingFinalization` or `completed`).
    public let status: RoundStatus
    /// The leaderboard, best first.
    public let standings: [StandingsEntry]

    /// The standings of `view`'s round.
    public init(_ view: RoundView) {
        round = RoundID(view.round.id)
        course = view.round.courseName
        status = view.evaluation.status
        standings = view.evaluation.standings
    }
}
