import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

/// `PeerLags` keeps each connected peer's lag event by event; every lag must equal the lag
/// worked out from scratch (the ops the store holds beyond what the peer holds), in id order,
/// and every event must report exactly the lags it changed.
@Suite struct PeerLagsTests {
    /// What the lags must be: every connected peer, sorted by id, each lag summed over every author.
    private static func expected(holds: [AuthorID: VersionVector], store: VersionVector?) -> [PeerLag] {
        holds.keys.sorted().map { peer in
            let lag = store.map { store in
                store.entries.reduce(UInt64(0)) { sum, entry in
                    let held = holds[peer]?[entry.key] ?? 0
                    return sum + (entry.value.sequence > held ? entry.value.sequence - held : 0)
                }
            }
            return PeerLag(peer: peer, lag: lag ?? 0)
        }
    }

    /// The lags that differ between two lists: a new lag, or nil for a peer gone from the list.
    private static func differences(from before: [PeerLag], to after: [PeerLag]) -> [String] {
        let old = Dictionary(uniqueKeysWithValues: before.map { ($0.peer, $0.lag) })
        let new = Dictionary(uniqueKeysWithValues: after.map { ($0.peer, $0.lag) })
        return Set(old.keys).union(new.keys).sorted().compactMap { peer in
            old[peer] == new[peer] ? nil : "\(peer.short)=\(new[peer].map(String.init) ?? "gone")"
        }
    }

    private static func described(_ changes: [PeerLags.Change]) -> [String] {
        changes.sorted { $0.peer < $1.peer }.map { "\($0.peer.short)=\($0.lag.map(String.init) ?? "gone")" }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func lagsKeptEventByEventEqualLagsWorkedOutFromScratch(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let ids = (0..<12).map { _ in AuthorID(bytes: random.bytes(32))! }
        var lags = PeerLags()
        var holds: [AuthorID: VersionVector] = [:]
        var connections: [AuthorID: Int] = [:]
        var store: VersionVector?
        func randomVector() -> VersionVector {
            VersionVector(
                Dictionary(uniqueKeysWithValues: ids.filter { _ in random.chance(60) }.map { ($0, UInt64(1 + random.below(40))) }))
        }
        for step in 0..<2_000 {
            let peer = random.pick(ids)
            let before = lags.peers
            let changes: [PeerLags.Change]
            switch random.below(5) {
            case 0:
                changes = lags.record(.opened(peer: peer))
                holds[peer] = holds[peer] ?? VersionVector()
                connections[peer, default: 0] += 1
            case 1:
                let vector = randomVector()
                changes = lags.record(.peerHolds(peer: peer, vector))
                if holds[peer] != nil { holds[peer] = vector }
            case 2:
                changes = lags.record(.closed(peer: peer))
                connections[peer] = connections[peer].map { $0 - 1 }
                if connections[peer] == 0 { (holds[peer], connections[peer]) = (nil, nil) }
            default:
                // The store's vector grows by one author's head, or (rarely) is read afresh.
                var vector = store ?? VersionVector()
                if random.chance(10) {
                    vector = randomVector()
                } else {
                    vector[random.pick(ids)] += UInt64(1 + random.below(3))
                }
                changes = lags.storeRead(vector)
                store = vector
            }
            let expected = Self.expected(holds: holds, store: store)
            #expect(lags.peers == expected, "seed \(seed), step \(step)")
            #expect(Self.described(changes) == Self.differences(from: before, to: lags.peers), "seed \(seed), step \(step)")
            guard lags.peers == expected else { return }
        }
    }

    @Test func aPeerAheadOfTheStoreLagsByNothingAndAnAuthorTheStoreNoLongerHoldsCountsNoMore() {
        let (a, b, peer) = (
            AuthorID(bytes: [UInt8](repeating: 1, count: 32))!, AuthorID(bytes: [UInt8](repeating: 2, count: 32))!,
            AuthorID(bytes: [UInt8](repeating: 3, count: 32))!
        )
        var lags = PeerLags()
        lags.record(.opened(peer: peer))
        #expect(lags.peers == [PeerLag(peer: peer, lag: 0)], "no store vector read yet")
        lags.storeRead(VersionVector([a: 5, b: 3]))
        #expect(lags.peers.map(\.lag) == [8])
        lags.record(.peerHolds(peer: peer, VersionVector([a: 9])))
        #expect(lags.peers.map(\.lag) == [3], "ahead on a: only b's 3 count")
        lags.storeRead(VersionVector([a: 7]))
        #expect(lags.peers.map(\.lag) == [0], "b left the store's vector; the peer is ahead on a")
        lags.storeRead(VersionVector([a: 12, b: 1]))
        #expect(lags.peers.map(\.lag) == [4])
        lags.record(.closed(peer: peer))
        #expect(lags.peers.isEmpty)
    }

    /// A peer that redialed before its old connection was found dead is still connected when
    /// the old one closes; it goes when its last connection closes.
    @Test func aPeerConnectedTwiceStaysUntilItsLastConnectionCloses() {
        let (a, peer) = (AuthorID(bytes: [UInt8](repeating: 1, count: 32))!, AuthorID(bytes: [UInt8](repeating: 3, count: 32))!)
        var lags = PeerLags()
        lags.storeRead(VersionVector([a: 5]))
        lags.record(.opened(peer: peer))
        lags.record(.peerHolds(peer: peer, VersionVector([a: 2])))
        #expect(lags.record(.opened(peer: peer)).isEmpty, "the second connection keeps what the peer holds")
        #expect(lags.peers == [PeerLag(peer: peer, lag: 3)])
        #expect(lags.record(.closed(peer: peer)).isEmpty)
        #expect(lags.peers == [PeerLag(peer: peer, lag: 3)], "one connection is still open")
        let changes = lags.record(.closed(peer: peer))
        #expect(changes.count == 1 && changes.first?.peer == peer && changes.first?.lag == nil)
        #expect(lags.peers.isEmpty)
        #expect(lags.record(.peerHolds(peer: peer, VersionVector())).isEmpty, "a closed peer's late report adds nothing")
        #expect(lags.peers.isEmpty)
    }
}
