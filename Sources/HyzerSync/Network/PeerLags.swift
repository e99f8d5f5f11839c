import HyzerDomain
import HyzerKit

/// A connected peer and how many ops it lacks of what this device holds, as far as this device
/// knows: what the peer said it holds and what it was sent.
public struct PeerLag: Equatable, Sendable {
    /// The peer's device id, as its handshake proved it.
    public let peer: AuthorID
    /// The ops this device holds that the peer is not known to hold.
    public let lag: UInt64

    /// `peer`, lagging by `lag` ops.
    public init(peer: AuthorID, lag: UInt64) {
        self.peer = peer
        self.lag = lag
    }
}

/// Every connected peer's lag, kept up to date from what connections report
/// (`ConnectionProgress`) and from the store's vector, read once per change of the store. It is
/// the one place lags are worked out: an engine's `SyncStatus.peers` and `serve`'s
/// `hyzer_peer_lag_ops` both follow it.
///
/// Nothing here reads the store, and no event works out every lag afresh: a peer's event works
/// out that peer's lag alone (a binary search keeps `peers` in id order), and a change of the
/// store moves each lag by the authors whose heads changed, usually one, however many authors
/// the store holds (docs/performance.md, "A tournament"). A peer connected twice (a redial
/// before the old connection is found dead) stays until its last connection closes.
public struct PeerLags: Sendable {
    /// The connected peers, in id order, each with its lag.
    public private(set) var peers: [PeerLag] = []
    /// The store's vector as last read (`storeRead`): what lags are measured against. Until it
    /// is read, every lag is 0.
    public private(set) var store: VersionVector?
    /// Each connected peer's open connections, and what it is known to hold.
    private var connected: [AuthorID: (connections: Int, holds: VersionVector)] = [:]

    /// A peer whose lag changed: its new lag, or nil when it is no longer connected.
    public typealias Change = (peer: AuthorID, lag: UInt64?)

    /// No peer connected, no store read.
    public init() {}

    /// One connection's report; returns the lags it changed.
    @discardableResult
    public mutating func record(_ progress: ConnectionProgress) -> [Change] {
        switch progress {
        case .opened(let peer):
            // A second connection of a connected peer keeps what the peer is known to hold.
            let holds = connected[peer]?.holds ?? VersionVector()
            connected[peer] = ((connected[peer]?.connections ?? 0) + 1, holds)
            return setLag(lag(of: holds), of: peer)
        case .peerHolds(let peer, let vector):
            guard let connections = connected[peer]?.connections else { return [] }
            connected[peer] = (connections, vector)
            return setLag(lag(of: vector), of: peer)
        case .closed(let peer):
            guard let connections = connected[peer]?.connections else { return [] }
            guard connections <= 1 else {
                connected[peer]?.connections = connections - 1
                return []
            }
            connected[peer] = nil
            return setLag(nil, of: peer)
        }
    }

    /// The store's vector is now `vector`; returns the lags that changed.
    @discardableResult
    public mutating func storeRead(_ vector: VersionVector) -> [Change] {
        let previous = store
        store = vector
        guard let previous else { return connected.keys.sorted().flatMap { setLag(lag(of: connected[$0]?.holds), of: $0) } }
        let moved = Self.heads(from: previous, to: vector)
        guard !moved.isEmpty else { return [] }
        var changes: [Change] = []
        for index in peers.indices {
            let peer = peers[index]
            let holds = connected[peer.peer]?.holds ?? VersionVector()
            var lag = peer.lag
            for head in moved {
                let held = holds[head.author]
                lag = lag &- Self.excess(of: head.before, over: held) &+ Self.excess(of: head.after, over: held)
            }
            guard lag != peer.lag else { continue }
            peers[index] = PeerLag(peer: peer.peer, lag: lag)
            changes.append((peer.peer, lag))
        }
        return changes
    }

    /// Ops the store holds beyond `holds`, summed over every author (0 before the store is read).
    private func lag(of holds: VersionVector?) -> UInt64 {
        guard let store else { return 0 }
        let holds = holds ?? VersionVector()
        return store.entries.reduce(0) { sum, entry in sum &+ Self.excess(of: entry.value.sequence, over: holds[entry.key]) }
    }

    /// Sets `peer`'s lag, or removes the peer (nil), keeping `peers` in id order: a binary
    /// search, not a sort of every peer on every event.
    private mutating func setLag(_ lag: UInt64?, of peer: AuthorID) -> [Change] {
        var (low, high) = (0, peers.count)
        while low < high {
            let middle = low + (high - low) / 2
            if peers[middle].peer < peer { low = middle + 1 } else { high = middle }
        }
        let found = low < peers.count && peers[low].peer == peer
        switch (lag, found) {
        case (let lag?, true) where peers[low].lag != lag: peers[low] = PeerLag(peer: peer, lag: lag)
        case (let lag?, false): peers.insert(PeerLag(peer: peer, lag: lag), at: low)
        case (nil, true): peers.remove(at: low)
        default: return []
        }
        return [(peer, lag)]
    }

    /// One author's part of a lag: the ops up to `sequence` beyond the peer's `held`.
    private static func excess(of sequence: UInt64, over held: UInt64) -> UInt64 {
        sequence > held ? sequence - held : 0
    }

    /// The authors whose head differs between two vectors (an author missing from one is at 0
    /// there), with both heads.
    private static func heads(from previous: VersionVector, to vector: VersionVector) -> [(
        author: AuthorID, before: UInt64, after: UInt64
    )] {
        var moved = vector.entries.compactMap { author, entry in
            let before = previous[author]
            return before == entry.sequence ? nil : (author: author, before: before, after: entry.sequence)
        }
        for (author, entry) in previous.entries where vector.entry(author) == nil {
            moved.append((author: author, before: entry.sequence, after: 0))
        }
        return moved
    }
}
