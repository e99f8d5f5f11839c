import Foundation

/// An immutable score: a player's strokes on one hole of one round, as one device reported it.
/// Corrections and resolutions are new events that list the events they supersede.
public struct ScoreEvent: Hashable, Sendable {
    /// The event's id, derived from its op's hash.
    public let id: UUID
    /// The round the score belongs to.
    public let roundID: UUID
    /// 1 through the round's hole count.
    public let holeNumber: Int
    /// The participant who played the strokes.
    public let playerID: ParticipantID
    /// 1 through 10.
    public let strokeCount: Int
    /// Empty for a first score, one id for a correction, several for a resolution.
    public let supersedes: [UUID]
    /// The player who reported the score, if the reporting device has an owner.
    public let reportedByPlayerID: ParticipantID?
    /// The authoring replica.
    public let deviceID: AuthorID
    /// When the score was recorded, by the authoring replica's clock.
    public let createdAt: HLCTimestamp
    /// The op's sequence number in its device's log (0 where unknown): a finish that carries
    /// the finishing device's vector counts the events that vector holds.
    public let sequence: UInt64

    /// An event as its op recorded it; nothing is validated here (``RoundEvaluation`` decides what counts).
    public init(
        id: UUID, roundID: UUID, holeNumber: Int, playerID: ParticipantID, strokeCount: Int,
        supersedes: [UUID], reportedByPlayerID: ParticipantID?, deviceID: AuthorID, createdAt: HLCTimestamp,
        sequence: UInt64 = 0
    ) {
        self.sequence = sequence
        self.id = id
        self.roundID = roundID
        self.holeNumber = holeNumber
        self.playerID = playerID
        self.strokeCount = strokeCount
        self.supersedes = supersedes
        self.reportedByPlayerID = reportedByPlayerID
        self.deviceID = deviceID
        self.createdAt = createdAt
    }

    /// Strokes allowed on one hole.
    public static let strokeRange = 1...10
}
