import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync

/// Where an engine's sync stands (`SyncController.statuses()`).
public struct SyncStatus: Equatable, Sendable {
    /// Waiting to be admitted with an invitation: sync starts once a member admits this device.
    public var joining = false
    /// The TCP address peers reach this device at, once it listens.
    public var listening: PeerAddress?
    /// The peers connected now, in id order, each with how many ops it lacks of what this
    /// device holds (as far as this device knows: what the peer said and was sent).
    public var peers: [PeerLag] = []
    /// The members found on the LAN (`SyncPlan.discover`), by address: services whose record
    /// shows the group's tag, whichever of the two dials the other (a stranger with a copied
    /// record among them until its handshake fails and it is left alone).
    public var discovered: [PeerAddress] = []
    /// The latest failure, until a later connection or folder sync succeeds.
    public var lastFailure: SyncProblem?
    /// The peers the sync stopped dialing, or dials once a minute (`SyncRefusal`: a peer that
    /// closes every handshake, as one of another group does, until it completes one; or, once a
    /// member showed the organizer's removal of this device, every peer of the plan, none of
    /// them dialed again, a member found on the LAN neither); `resume()` after `pause()` tries
    /// them again.
    public var refused: [RefusedPeer] = []
    /// Whether the sync is paused (`SyncController.pause()`) until `resume()`.
    public var paused = false
    /// Whether the sync was stopped (`SyncController.stop()`): the last status.
    public var stopped = false

    /// A status before anything happened: not joining, not listening, no peer, no failure.
    public init() {}
}

/// Why a connection, a folder sync or a join did not work out.
public enum SyncProblem: Equatable, Sendable, CustomStringConvertible {
    /// A connection with a peer failed (the peer when the handshake proved it).
    case connection(peer: DeviceID?, SyncFailure)
    /// A join with an invitation did not happen.
    case join(PeerSyncError)
    /// The shared folder's sync failed.
    case folder(String)
    /// The sync could not run at all (the listening address was taken, the store's change
    /// monitor could not start); it stopped.
    case stopped(String)

    /// A sentence saying what failed.
    public var description: String {
        switch self {
        case .connection(let peer, let failure): "a connection\(peer.map { " with \($0.short)" } ?? "") failed: \(failure)"
        case .join(let error): "joining failed: \(error)"
        case .folder(let reason): "the folder sync failed: \(reason)"
        case .stopped(let reason): "the sync stopped: \(reason)"
        }
    }
}
