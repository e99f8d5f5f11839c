import Foundation

/// A score event that every view ignores, with the reason. Ignored events stay in the log
/// (they are authentic, signed history); `verify` lists them.
public struct IgnoredEvent: Hashable, Sendable {
    /// Why an event is ignored. The first rule an event breaks, in the order of the cases.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// Another event carries the same id and sorts first by `(createdAt, deviceID)`; that one
        /// counts and this one is ignored.
        case duplicateID
        /// The event names a different round from the one evaluated.
        case wrongRound
        /// The hole number is outside `1...holeCount` of the round.
        case holeOutOfRange(hole: Int, holeCount: Int)
        /// The stroke count is outside `1...10`.
        case strokesOutOfRange(strokes: Int)
        /// The scored player is not one of the round's participants.
        case notAParticipant(player: ParticipantID)
        /// The event is stamped before its round's start: a stamp the log cannot hold honestly.
        case beforeRoundStart
        /// The event came after the round's valid finish and is not a resolution from a device
        /// owning the organizer: it is stamped at or after the finish (and, for a finish that
        /// carries the finishing device's vector, that vector does not hold it).
        case afterFinish
        /// Late: stamped before the finish, so written before it, but the finishing device had
        /// not received it when it finished, and its vector does not hold it. Listed as late;
        /// the organizer counts it with `resolve --late` (docs/rules.md, "Late scores").
        case lateForFinish

        /// One sentence for `verify` and logs.
        public var description: String {
            switch self {
            case .duplicateID:
                "another event has the same id and was created first"
            case .wrongRound:
                "the event belongs to another round"
            case .holeOutOfRange(let hole, let holeCount):
                "hole \(hole) is outside 1...\(holeCount)"
            case .strokesOutOfRange(let strokes):
                "\(strokes) strokes is outside \(ScoreEvent.strokeRange)"
            case .notAParticipant(let player):
                "\(player) is not a participant of the round"
            case .beforeRoundStart:
                "the event is stamped before its round started"
            case .afterFinish:
                "the event was created after the round was finished"
            case .lateForFinish:
                "the event was written before the round was finished but reached the finishing device after it: a late score, not counted unless the organizer counts it (resolve --late)"
            }
        }
    }

    /// The ignored event, exactly as it is in the log.
    public let event: ScoreEvent
    /// Why views ignore it.
    public let reason: Reason

    /// `event`, ignored for `reason`.
    public init(event: ScoreEvent, reason: Reason) {
        self.event = event
        self.reason = reason
    }
}
