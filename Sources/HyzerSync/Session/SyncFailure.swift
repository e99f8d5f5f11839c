import HyzerDomain
import HyzerKit

/// Why a connection ended before its exchange completed. Carried from the engine (or the
/// network shell) up to the log line and `ConnectionOutcome`; its description is the log text.
public enum SyncFailure: Error, Equatable, Sendable, CustomStringConvertible, Encodable {
    /// The peer does not hold the group secret (or belongs to another group).
    case notAGroupMember
    /// The handshake failed for another reason: a malformed message, a bad signature, a message out of turn.
    case handshakeRefused(HandshakeError)
    /// The peer did not complete the handshake in time.
    case handshakeTimeout
    /// After the handshake the peer kept the connection open without making progress.
    case idleTimeout
    /// Nothing, not even a heartbeat, arrived for too long.
    case peerDead
    /// The peer's stream header is not one.
    case malformedStreamHeader
    /// A frame failed authentication: changed, forged, replayed or out of order.
    case frameAuthenticationFailed
    /// An authenticated frame that holds no valid message.
    case malformedMessage
    /// A frame longer than the bound for this stage of the connection.
    case frameTooLarge(bytes: Int, limit: Int)
    /// A message the protocol does not allow at this point.
    case protocolViolation(ProtocolViolation)
    /// The peer's reassembled bundle does not decode.
    case bundleRefused(BundleError)
    /// The peer's bundle grew beyond the per-connection bound.
    case bundleTooLarge(limit: Int)
    /// The server's memory for partial bundles, shared by all connections, is used up.
    case budgetExhausted
    /// Our own delta holds a bundle larger than a peer accepts (one author's segment too long).
    case deltaTooLarge(bytes: Int, limit: Int)
    /// The peer said `bye`.
    case peerClosed(reason: String)
    /// The connection closed before the exchange completed.
    case connectionLost
    /// The connection closed before identities were exchanged: what a listener of another group
    /// does with our first message, and what a program that does not speak the protocol does.
    case closedDuringHandshake
    /// The listener closed for a reason of its own and said which before closing (a frame anyone
    /// on the path could forge: believed no further than its wording and a retry).
    case listenerBusy(ListenerBusy)
    /// This listener closed the connection to make room for a newer one from the same address:
    /// it had not proved the group secret, and that address had its share of pending connections.
    case evicted
    /// The peer proved it holds the group secret, then closed instead of admitting our identity:
    /// what a member does with a device the organizer removed.
    case notAdmittedByPeer
    /// The peer refused this device and showed the group organizer's signed removal of it: no
    /// retry changes that (docs/sync-protocol.md, "Removed devices").
    case removedFromGroup
    /// The peer did not accept a frame in time.
    case stalled
    /// The store failed (its error, for the log).
    case storeFailed(String)
    /// The organizer removed the peer while it was connected.
    case peerRemoved(AuthorID)
    /// A device asked to be admitted with an invitation, and was not.
    case joinRefused(AdmissionRefusal)
    /// The peer runs a build that sends its whole vector in its hello instead of reconciling.
    case olderPeer

    /// What the protocol refused.
    public enum ProtocolViolation: Equatable, Sendable {
        /// A second `hello`.
        case secondHello
        /// A bundle part before the peer's `hello`.
        case bundleBeforeHello
        /// A `have` before the peer's `hello`.
        case haveBeforeHello
        /// A `done` outside a one-shot exchange, or a second one.
        case unexpectedDone
        /// A message on a connection that asked to be admitted with an invitation.
        case messageDuringAdmission
        /// A `holds` outside a live exchange.
        case unexpectedHolds
        /// A `reconcile` before the peer's `hello` or after the vectors were reconciled.
        case reconcileOutOfTurn
        /// A `hello` or `reconcile` whose ranges are not the ones both sides' summaries call for.
        case reconciliationOutOfStep
    }

    /// The failure in one sentence, as logs print it.
    public var description: String {
        switch self {
        case .notAGroupMember: "handshake failed: the peer does not hold this group's secret"
        case .handshakeRefused(let error): "handshake failed: \(error)"
        case .handshakeTimeout: "no handshake in time"
        case .idleTimeout: "the peer made no progress in time"
        case .peerDead: "nothing arrived from the peer in time: it is gone"
        case .malformedStreamHeader: "the peer's stream header is malformed"
        case .frameAuthenticationFailed: "a frame failed authentication (changed, replayed or out of order)"
        case .malformedMessage: "a frame holds no valid message"
        case .frameTooLarge(let bytes, let limit): "a frame of \(bytes) bytes is above the \(limit)-byte bound"
        case .protocolViolation(let violation): "protocol violation: \(violation)"
        case .bundleRefused(let error): "the peer's bundle was refused: \(error)"
        case .bundleTooLarge(let limit): "the peer's bundle is larger than \(limit) bytes"
        case .budgetExhausted: "no memory left for partial bundles"
        case .deltaTooLarge(let bytes, let limit):
            "our delta holds a \(bytes)-byte bundle, above the \(limit)-byte bound; sync through a shared folder"
        case .peerClosed(let reason): "the peer closed: \(reason)"
        case .connectionLost: "the peer closed the connection before the exchange completed"
        case .closedDuringHandshake:
            "the peer closed the connection during the handshake: it may be in another group (a different group secret) or may not be hyzer-peer"
        case .listenerBusy(let reason): "the peer is busy: \(reason); try again shortly"
        case .evicted: "closed to make room for a newer connection from the same address, before the handshake"
        case .notAdmittedByPeer:
            "the peer holds this group's secret but refused this device: the organizer may have removed it from the group (a new invite brings it back)"
        case .removedFromGroup:
            "the group's organizer removed this device from the group (the peer showed the organizer's signed removal): it can join again only as a new device, with a new invitation"
        case .stalled: "the peer stopped reading"
        case .storeFailed(let error): "the store failed: \(error)"
        case .peerRemoved(let peer): "the peer, device \(peer.short), was removed from the group"
        case .joinRefused(let refusal): "a join request was refused: \(refusal)"
        case .olderPeer: "the peer runs an older hyzer-peer, whose sync messages this one does not speak: update it to this version"
        }
    }

    /// The failure's kind without its details, a fixed set of names: a metric's label.
    public var reason: String {
        switch self {
        case .notAGroupMember: "notAGroupMember"
        case .handshakeRefused: "handshakeRefused"
        case .handshakeTimeout: "handshakeTimeout"
        case .idleTimeout: "idleTimeout"
        case .peerDead: "peerDead"
        case .malformedStreamHeader: "malformedStreamHeader"
        case .frameAuthenticationFailed: "frameAuthenticationFailed"
        case .malformedMessage: "malformedMessage"
        case .frameTooLarge: "frameTooLarge"
        case .protocolViolation: "protocolViolation"
        case .bundleRefused: "bundleRefused"
        case .bundleTooLarge: "bundleTooLarge"
        case .budgetExhausted: "budgetExhausted"
        case .deltaTooLarge: "deltaTooLarge"
        case .peerClosed: "peerClosed"
        case .connectionLost: "connectionLost"
        case .closedDuringHandshake: "closedDuringHandshake"
        case .listenerBusy: "listenerBusy"
        case .evicted: "evicted"
        case .notAdmittedByPeer: "notAdmittedByPeer"
        case .removedFromGroup: "removedFromGroup"
        case .stalled: "stalled"
        case .storeFailed: "storeFailed"
        case .peerRemoved: "peerRemoved"
        case .joinRefused: "joinRefused"
        case .olderPeer: "olderPeer"
        }
    }

    /// Encodes the failure as one JSON string, its `description`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
