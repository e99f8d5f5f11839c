import HyzerDomain
import HyzerKit

/// How far behind this device each connected peer is (`SyncStatus.peers`): the ops the store
/// holds beyond what the peer said it holds. It is kept up to date event by event, without a
/// store read: a peer's event works out that peer's lag alone, and a change of the store moves
/// every peer's lag by the authors whose heads changed (usually one), however many authors the
/// store holds (docs/performance.md, "A tournament").
struct PeerLags {
    /// The connected peers, in id order, each with its lag.
    private(set) var peers: [SyncStatus.PeerLag] = []
    /// What each connected peer holds, as far as this device knows.
    private var holds: [AuthorID: VersionVector] = [:]
    /// The store's vector, read once after each change of the store: what lags are measured
    /// against. Until it is read, every lag is 0.
    private var local: VersionVector?

    /// A peer connected: it holds what it held when it was last connected, if it still is.
    mutating func opened(_ peer: AuthorID) {
        let held = holds[peer] ?? VersionVector()
        holds[peer] = held
        setLag(local.map { Self.lag(of: held, behind: $0) } ?? 0, of: peer)
    }

    /// A peer said (or was sent) what it holds.
    mutating func peer(_ peer: AuthorID, holds vector: VersionVector) {
        holds[peer] = vector
        setLag(local.map { Self.lag(of: vector, behind: $0) } ?? 0, of: peer)
    }

    /// A peer's connection closed.
    mutating func closed(_ peer: AuthorID) {
        holds[peer] = nil
        setLag(nil, of: peer)
    }

    /// The store's vector is now `vector`.
    mutating func localRead(_ vector: VersionVector) {
        let previous = local
        local = vector
        guard let previous else {
            for (peer, held) in holds { setLag(Self.lag(of: held, behind: vector), of: peer) }
            return
        }
        let changed = Self.changes(from: previous, to: vector)
        guard !changed.isEmpty else { return }
        for index in peers.indices {
            let peer = peers[index]
            let held = holds[peer.peer] ?? VersionVector()
            var lag = peer.lag
            for change in changed {
                let sequence = held[change.author]
                lag = lag &- Self.excess(of: change.before, over: sequence) &+ Self.excess(of: change.after, over: sequence)
            }
            if lag != peer.lag { peers[index] = SyncStatus.PeerLag(peer: peer.peer, lag: lag) }
        }
    }

    /// Sets `peer`'s lag, or removes the peer (nil), keeping `peers` in id order: a binary
    /// search, not a sort of every peer on every event.
    private mutating func setLag(_ lag: UInt64?, of peer: AuthorID) {
        var (low, high) = (0, peers.count)
        while low < high {
            let middle = low + (high - low) / 2
            if peers[middle].peer < peer { low = middle + 1 } else { high = middle }
        }
        let found = low < peers.count && peers[low].peer == peer
        switch (lag, found) {
        case (let lag?, true) where peers[low].lag != lag: peers[low] = SyncStatus.PeerLag(peer: peer, lag: lag)
        case (let lag?, false): peers.insert(SyncStatus.PeerLag(peer: peer, lag: lag), at: low)
        case (nil, true): peers.remove(at: low)
        default: break
        }
    }

    /// Ops `local` holds beyond `holds`.
    static func lag(of holds: VersionVector, behind local: VersionVector) -> UInt64 {
        local.entries.reduce(0) { sum, entry in sum &+ excess(of: entry.value.sequence, over: holds[entry.key]) }
    }

    /// One author's part of a lag: the ops up to `sequence` beyond the peer's `held`.
    private static func excess(of sequence: UInt64, over held: UInt64) -> UInt64 {
        sequence > held ? sequence - held : 0
    }

    /// The authors whose head differs between two vectors (an author missing from one is at 0
    /// there), with both heads.
    private static func changes(from previous: VersionVector, to vector: VersionVector) -> [(
        author: AuthorID, before: UInt64, after: UInt64
    )] {
        var changed = vector.entries.compactMap { author, entry in
            let before = previous[author]
            return before == entry.sequence ? nil : (author: author, before: before, after: entry.sequence)
        }
        for (author, entry) in previous.entries where vector.entry(author) == nil {
            changed.append((author: author, before: entry.sequence, after: 0))
        }
        return changed
    }
}
