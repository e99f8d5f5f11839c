import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import Synchronization

/// Why a running sync stopped dialing a peer: a refusal that retrying cannot change.
///
/// A member that refuses a device without showing the organizer's signed removal of it
/// (`SyncFailure.notAdmittedByPeer`: a member that holds no signed removal, or one whose
/// admission of this device has not reached it yet) is dialed again with backoff.
public enum SyncRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The peer answered none of this group's keys, the newest and every older one this device
    /// holds, several times in a row: it belongs to another group, or does not speak the protocol.
    case otherGroup
    /// A member showed the group organizer's signed removal of this device
    /// (`SyncFailure.removedFromGroup`): every peer of the group would refuse it, so the sync
    /// dials none of them again.
    case removedFromGroup

    /// A sentence saying why.
    public var description: String {
        switch self {
        case .otherGroup: "the peer belongs to another group"
        case .removedFromGroup: "the group's organizer removed this device from the group"
        }
    }
}

/// A peer of the plan that the sync stopped dialing (`SyncStatus.refused`).
public struct RefusedPeer: Equatable, Sendable, CustomStringConvertible {
    /// The peer as the plan names it: its TCP address, or the app's link as it describes itself.
    public let peer: String
    /// Why the sync stopped dialing it.
    public let refusal: SyncRefusal

    /// The peer and why, in one line.
    public var description: String { "\(peer): \(refusal)" }
}

/// One of the plan's openers that stops dialing for good once its peer refused this device in a
/// way no retry changes (`SyncRefusal`): its next dial waits until the run ends, and `refused`
/// is told once. Every other outcome leaves the shipped redial policy as it is.
struct RefusalAwareOpener: ByteLinkOpener {
    let base: any ByteLinkOpener
    let name: String
    let replica: Replica
    let verdict = RefusalVerdict()
    let refused: @Sendable (RefusedPeer) -> Void

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        guard verdict.refusal == nil else {
            // Nothing a retry changes: no dial until the run ends (its cancellation ends the wait).
            try await Task.sleep(for: .seconds(366 * 86_400))
            throw CancellationError()
        }
        let result = try await base.withLink(body)
        if let outcome = result as? ConnectionOutcome, let refusal = verdict.judge(outcome, replica: replica) {
            refused(RefusedPeer(peer: name, refusal: refusal))
        }
        return result
    }
}

/// Whether a peer's refusals have become final, judged connection by connection.
final class RefusalVerdict: Sendable {
    private struct State {
        var refusal: SyncRefusal?
        /// Handshakes in a row the peer refused for want of the group's key.
        var keyRefusals = 0
    }

    private let state = Mutex(State())

    /// The final refusal, once there is one.
    var refusal: SyncRefusal? { state.withLock { $0.refusal } }

    /// Judges how a connection ended; the refusal when it just became final: refusals of every
    /// key this device holds, twice round (the redialer tries the older keys in turn, for a peer
    /// that has not received the newest rekey), with no connection in between on which the peer
    /// proved itself.
    func judge(_ outcome: ConnectionOutcome, replica: Replica) -> SyncRefusal? {
        guard outcome.failure == .notAGroupMember || outcome.failure == .closedDuringHandshake else {
            if outcome.peer != nil { state.withLock { $0.keyRefusals = 0 } }
            return nil
        }
        let group = try? replica.group()
        var epochs = 1
        if let group {
            var epoch = group.epoch
            while let older = group.epochBefore(epoch) {
                epochs += 1
                epoch = older
            }
        }
        return state.withLock { state -> SyncRefusal? in
            guard state.refusal == nil else { return nil }
            state.keyRefusals += 1
            if state.keyRefusals >= 2 * (epochs + 1) { state.refusal = .otherGroup }
            return state.refusal
        }
    }
}
