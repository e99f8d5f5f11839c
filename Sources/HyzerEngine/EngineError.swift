import Foundation
import HyzerKit

/// What the engine itself refuses. The store's own refusals arrive as the library's typed errors
/// (docs/architecture.md, "Errors"): `ReplicaError` (an unknown entity, a busy store),
/// `GroupError`, `InvitationError`, `RoundError`, `InputError` and the others.
public enum EngineError: Error, Equatable, Sendable, LocalizedError {
    /// The engine was closed: it no longer reads or writes its store.
    case closed
    /// An invitation's lifetime must be longer than zero and at most a year.
    case invitationLifetimeOutOfRange
    /// The round has no participant with this id.
    case notAParticipant(ParticipantID, round: RoundID)
    /// This device already belongs to a group.
    case alreadyInGroup
    /// This device belongs to no group and holds no invitation: there is nobody to sync with.
    case notInAGroup
    /// The store's change monitor stopped (its inotify or wake-up descriptor failed), so an
    /// observation could no longer see changes. Observing again starts a new monitor.
    case changeMonitorStopped
    /// A one-shot sync reached its deadline (`syncPeer(_:within:logger:)`) before it finished;
    /// the ops that crossed before the cut are kept.
    case deadlinePassed(opsReceived: Int, opsSent: Int)

    /// A sentence saying what went wrong.
    public var errorDescription: String? {
        switch self {
        case .closed: "The engine is closed."
        case .invitationLifetimeOutOfRange: "An invitation lasts longer than zero and at most a year."
        case .notAParticipant(let participant, let round): "\(participant) is not a participant of round \(round)."
        case .alreadyInGroup: "This device already belongs to a group."
        case .notInAGroup: "This device belongs to no group and holds no invitation: create a group or accept an invitation first."
        case .changeMonitorStopped: "The store's change monitor stopped; observe again to start a new one."
        case .deadlinePassed(let received, let sent):
            "The sync did not finish within its deadline: \(received) ops arrived and \(sent) were sent before it was cut (they are kept); sync again to finish."
        }
    }
}
