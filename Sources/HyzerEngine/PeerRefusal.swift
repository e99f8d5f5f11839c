import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import Synchronization

/// Why a running sync stopped dialing a peer, or dials it only now and then.
///
/// A member that refuses a device without showing the organizer's signed removal of it
/// (`SyncFailure.notAdmittedByPeer`: a member that holds no signed removal, or one whose
/// admission of this device has not reached it yet) is dialed again with backoff.
public enum SyncRefusal: Equatable, Sendable, CustomStringConvertible {
    /// The peer closed every handshake, with each of this group's keys twice round and for at
    /// least `RefusalVerdict.otherGroupAfter`: it belongs to another group, does not speak the
    /// protocol, or is down behind a proxy that accepts for it. It is dialed once every
    /// `RefusalVerdict.probeInterval`, and a handshake it completes ends the refusal.
    case otherGroup
    /// A member showed the group organizer's signed removal of this device
    /// (`SyncFailure.removedFromGroup`): every peer of the group would refuse it, so the sync
    /// dials none of them again.
    case removedFromGroup

    /// A sentence saying why.
    public var description: String {
        switch self {
        case .otherGroup: "the peer closes every handshake: it belongs to another group, or is down behind a proxy"
        case .removedFromGroup: "the group's organizer removed this device from the group"
        }
    }
}

/// A peer of the plan that the sync stopped dialing, or dials only now and then (`SyncStatus.refused`).
public struct RefusedPeer: Equatable, Sendable, CustomStringConvertible {
    /// The peer as the plan names it: its TCP address, or the app's link as it describes itself.
    public let peer: String
    /// Why the sync stopped dialing it.
    public let refusal: SyncRefusal

    /// The peer and why, in one line.
    public var description: String { "\(peer): \(refusal)" }
}

/// One of the plan's openers that dials a peer seldom once its handshakes say it is of another
/// group (`RefusalVerdict`): a dial once every `RefusalVerdict.probeInterval` instead of the
/// redialer's backoff, until a handshake completes. `changed` is told when the verdict is
/// reached and when it ends. Every other outcome leaves the shipped redial policy as it is.
struct RefusalAwareOpener: ByteLinkOpener, CustomStringConvertible {
    let base: any ByteLinkOpener
    let name: String
    let replica: Replica
    let verdict = RefusalVerdict()
    let changed: @Sendable (RefusedPeer?) -> Void

    var description: String { name }

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        if verdict.refusal != nil { try await Task.sleep(for: RefusalVerdict.probeInterval) }
        let result = try await base.withLink(body)
        guard let outcome = result as? ConnectionOutcome else { return result }
        switch verdict.judge(outcome, epochs: Self.epochs(of: replica), at: .now) {
        case .refused(let refusal)?: changed(RefusedPeer(peer: name, refusal: refusal))
        case .ended?: changed(nil)
        case nil: break
        }
        return result
    }

    /// The group keys this device holds: the newest and every older one.
    static func epochs(of replica: Replica) -> Int {
        guard let group = try? replica.group() else { return 1 }
        var (epochs, epoch) = (1, group.epoch)
        while let older = group.epochBefore(epoch) {
            epochs += 1
            epoch = older
        }
        return epochs
    }
}

/// Whether a peer's closed handshakes say it is of another group, judged connection by
/// connection (docs/embedding.md, "A refusal no retry changes").
///
/// A listener of another group closes on the dialer's first message without a word (it tells a
/// stranger nothing), and so does a proxy whose peer is down, or a peer that dies and starts
/// again: only closes that go on, for every key and for a while, make the verdict.
final class RefusalVerdict: Sendable {
    /// How long a streak of closed handshakes lasts before it is a verdict: longer than a
    /// peer's restart, or a proxy's wait for the peer behind it.
    static let otherGroupAfter: Duration = .seconds(30)
    /// The pause before each dial of a peer judged of another group.
    static let probeInterval: Duration = .seconds(60)

    /// What a connection changed.
    enum Change: Equatable {
        /// The verdict was reached.
        case refused(SyncRefusal)
        /// The peer completed a handshake: the verdict is over.
        case ended
    }

    private struct State {
        var refusal: SyncRefusal?
        /// Handshakes in a row the peer closed, and when the first of them ended.
        var closes = 0
        var firstClose: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// The verdict, while there is one.
    var refusal: SyncRefusal? { state.withLock { $0.refusal } }

    /// Judges a connection that ended at `now`, with `epochs` group keys held: the verdict once
    /// the peer closed the handshakes of every key, twice round (the redialer tries the older
    /// keys in turn, for a peer the newest rekey has not reached), over at least
    /// `otherGroupAfter`, with no connection in between on which the peer proved itself; its end
    /// at the first such connection.
    func judge(_ outcome: ConnectionOutcome, epochs: Int, at now: ContinuousClock.Instant) -> Change? {
        state.withLock { state -> Change? in
            guard outcome.failure == .notAGroupMember || outcome.failure == .closedDuringHandshake else {
                guard outcome.peer != nil else { return nil }
                let ended = state.refusal != nil
                state = State()
                return ended ? .ended : nil
            }
            guard state.refusal == nil else { return nil }
            state.closes += 1
            let first = state.firstClose ?? now
            state.firstClose = first
            guard state.closes >= 2 * (epochs + 1), now - first >= Self.otherGroupAfter else { return nil }
            state.refusal = .otherGroup
            return .refused(.otherGroup)
        }
    }
}
