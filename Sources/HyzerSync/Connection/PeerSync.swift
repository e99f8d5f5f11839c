import Foundation
import HyzerKit
import Logging

/// One sync with a peer, as `sync --peer` runs it, over any link (`ByteLinkOpener`): a device
/// with a pending invitation asks to be admitted first (`join`); the exchange dials with the
/// newest group key, then with older ones while the peer refuses it during the handshake (it
/// has not received the rekey yet: `Redialer.epochToDial(after:dialed:group:)`); a round whose
/// finish arrived gets this device's receipt (the driver's step after each ingest,
/// `Replica.afterIngest`).
public struct PeerSync: Sendable {
    /// The replica that syncs.
    public let replica: Replica
    /// Where the exchanges log.
    public let logger: Logger
    /// Timeouts, heartbeats and the largest bundle of each exchange.
    public var configuration = SyncEngine.Configuration()
    /// Time the member has to answer a join request.
    public var joinTimeout: Duration = .seconds(10)

    /// A sync of `replica`, logging to `logger`.
    public init(replica: Replica, logger: Logger) {
        self.replica = replica
        self.logger = logger
    }

    /// Asks the member `opener` reaches to admit this device, when it holds an invitation and no
    /// group yet; returns the group joined, or `nil` when there was nothing to join. Throws
    /// `PeerSyncError` when the member does not admit it, or what `opener` throws.
    public func join(_ opener: some ByteLinkOpener) async throws -> UUID? {
        guard try replica.group() == nil, let invitation = try replica.pendingInvitation() else { return nil }
        let request = JoinRequest(invitation: invitation, device: replica.author)
        let reply = try await PeerDialer.askToJoin(opener, request: request, timeout: joinTimeout)
        if let reply, let busy = ListenerBusy(frame: reply) { throw PeerSyncError.listenerBusy(busy) }
        switch reply.flatMap({ JoinReply(decoding: $0, invitation: invitation, device: replica.author) }) {
        case nil:
            throw PeerSyncError.notAdmitted
        case .refused(let refusal)?:
            throw PeerSyncError.joinRefused(refusal)
        case .admitted(let answer)?:
            guard try replica.complete(answer) else { throw PeerSyncError.answerForAnotherDevice }
            return invitation.groupID
        }
    }

    /// One exchange with the peer `opener` reaches, in which this device signs its receipts of
    /// rounds whose finish arrived. Throws `PeerSyncError.failed` when the exchange fails
    /// (nothing partial was kept: every bundle is ingested whole or not at all), or what
    /// `opener` throws.
    public func sync(_ opener: some ByteLinkOpener) async throws -> ConnectionOutcome {
        let outcome = try await exchange(opener)
        if let failure = outcome.failure { throw PeerSyncError.failed(failure) }
        return outcome
    }

    /// One exchange with the peer `opener` reaches, however it ended: the outcome says what
    /// crossed and, for one that did not complete, why (a cancelled task's ends early, with the
    /// bundles ingested so far kept). Throws what `opener` throws, and when there is no group.
    public func exchange(_ opener: some ByteLinkOpener) async throws -> ConnectionOutcome {
        let group = try replica.requireGroup()
        var outcome: ConnectionOutcome
        var dialEpoch: UInt32?
        repeat {
            outcome = try await PeerDialer.run(
                opening: opener, replica: replica, group: group, mode: .oneShot, logger: logger, configuration: configuration,
                dialEpoch: dialEpoch)
            // A peer the newest rekey has not reached refuses our hello: try the older epochs we
            // hold, each once (`serve` goes round them again); a cancelled task tries no more.
            dialEpoch = Task.isCancelled ? nil : Redialer.epochToDial(after: outcome.failure, dialed: dialEpoch, group: group)
            assert(dialEpoch.map { group.secrets[$0] != nil } ?? true, "an epoch this device holds")
        } while dialEpoch != nil
        return outcome
    }
}

/// Why a sync with a peer did not happen.
public enum PeerSyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The member did not answer the join request: it does not hold the invitation yet, or is
    /// not a member of the group.
    case notAdmitted
    /// A member refused this device's invitation.
    case joinRefused(AdmissionRefusal)
    /// The member's answer was for another device.
    case answerForAnotherDevice
    /// The listener took no new connection.
    case listenerBusy(ListenerBusy)
    /// The exchange failed.
    case failed(SyncFailure)

    /// Why the sync did not happen, in one sentence, naming no command or flag.
    public var description: String {
        switch self {
        case .notAdmitted: "the member did not admit this device: it does not hold the invitation yet, or is not a member of the group"
        case .joinRefused(let refusal): "a member refused this device: \(refusal)"
        case .answerForAnotherDevice: "the member sent an answer for another device"
        case .listenerBusy(let busy): "the listener did not take the connection: \(SyncFailure.listenerBusy(busy))"
        case .failed(let failure): "the sync failed: \(failure); nothing partial was kept"
        }
    }
}
