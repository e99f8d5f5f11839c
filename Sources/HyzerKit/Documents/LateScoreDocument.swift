import HyzerDomain

/// A late score (docs/rules.md, "Late scores") as `discrepancies --json`, `round show --json`
/// and the web's API print it: the score, what happened, and the command that counts it.
public struct LateScoreDocument: Codable, Hashable, Sendable {
    /// The participant who played the strokes (its JSON: the player's lowercase UUID, or
    /// `guest:` and the guest's).
    public let playerID: ParticipantID
    /// The participant's name as the round lists it.
    public let name: String
    /// The hole, 1-based.
    public let hole: Int
    /// The strokes the score reports.
    public let strokes: Int
    /// The score event's id (its JSON: the lowercase UUID).
    public let eventID: ScoreEventID
    /// The authoring device's key (its JSON: lowercase hexadecimal).
    public let deviceID: DeviceID
    /// The event's clock reading, `milliseconds.counter`.
    public let createdAt: String
    /// What happened, in one sentence.
    public let reason: String
    /// What the organizer runs, on one of its devices, to count it.
    public let resolve: String

    /// The document of `late` in the round whose id is `round`.
    public init(_ late: LateScore, round: RoundID) {
        playerID = late.playerID
        name = late.name
        hole = late.hole
        strokes = late.strokes
        eventID = late.eventID
        deviceID = late.deviceID
        createdAt = late.createdAt
        reason = late.reason
        resolve = Self.command(round: round, event: late.eventID)
    }

    /// `hyzer-peer resolve <round> --late <event>`, with both ids shortened to 8 digits.
    public static func command(round: RoundID, event: ScoreEventID) -> String {
        "hyzer-peer resolve \(round.description.prefix(8)) --late \(event.description.prefix(8))"
    }

    /// The late scores of `view`'s round.
    public static func all(_ view: RoundView) -> [LateScoreDocument] {
        view.evaluation.lateScores.map { LateScoreDocument($0, round: RoundID(view.round.id)) }
    }
}
