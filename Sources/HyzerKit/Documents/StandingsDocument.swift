import HyzerDomain

/// A round's leaderboard as `standings --json` and the web's `/api/rounds/R/standings` print it.
public struct StandingsDocument: Encodable, Equatable, Sendable {
    public let round: String
    public let course: String
    public let status: String
    public let standings: [StandingsEntry]

    public init(_ view: RoundView) {
        round = view.round.id.lowercased
        course = view.round.courseName
        status = view.evaluation.status.rawValue
        standings = view.evaluation.standings
    }
}
