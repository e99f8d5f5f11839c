import HyzerDomain

/// A round's leaderboard as `standings --json` and the web's `/api/rounds/R/standings` print it.
public struct StandingsDocument: Encodable, Equatable, Sendable {
    /// The round's id (its JSON: the lowercase UUID).
    public let round: RoundID
    /// The course's name when the round started.
    public let course: String
    /// `active`, `awaitingFinalization` or `completed` (`RoundStatus`'s raw values).
    public let status: String
    /// The leaderboard, best first.
    public let standings: [StandingsEntry]

    /// The standings of `view`'s round.
    public init(_ view: RoundView) {
        round = RoundID(view.round.id)
        course = view.round.courseName
        status = view.evaluation.status.rawValue
        standings = view.evaluation.standings
    }
}
