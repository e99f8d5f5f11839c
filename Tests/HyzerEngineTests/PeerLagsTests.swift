import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// `PeerLags` keeps each connected peer's lag event by event; every lag must equal the lag
/// worked out from scratch (the ops the store holds beyond what the peer holds), in id order.
@Suite struct PeerLagsTests {
    /// What the lags must be: every connected peer, sorted by id, each lag summed over every author.
    private static func expected(holds: [AuthorID: VersionVector], local: VersionVector?) -> [SyncStatus.PeerLag] {
        holds.keys.sorted().map { peer in
            let lag = local.map { local in
                local.entries.reduce(UInt64(0)) { sum, entry in
                    let held = holds[peer]?[entry.key] ?? 0
                    return sum + (entry.value.sequence > held ? entry.value.sequence - held : 0)
                }
            }
            return SyncStatus.PeerLag(peer: peer, lag: lag ?? 0)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func lagsKeptEventByEventEqualLagsWorkedOutFromScratch(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let ids = (0..<12).map { _ in AuthorID(bytes: random.bytes(32))! }
        var lags = PeerLags()
        var holds: [AuthorID: VersionVector] = [:]
        var local: VersionVector?
        func randomVector() -> VersionVector {
            VersionVector(
                Dictionary(uniqueKeysWithValues: ids.filter { _ in random.chance(60) }.map { ($0, UInt64(1 + random.below(40))) }))
        }
        for step in 0..<2_000 {
            let peer = random.pick(ids)
            switch random.below(5) {
            case 0:
                lags.opened(peer)
                holds[peer] = holds[peer] ?? VersionVector()
            case 1:
                let vector = randomVector()
                lags.peer(peer, holds: vector)
                holds[peer] = vector
            case 2:
                lags.closed(peer)
                holds[peer] = nil
            default:
                // The store's vector grows by one author's head, or (rarely) is read afresh.
                var vector = local ?? VersionVector()
                if random.chance(10) {
                    vector = randomVector()
                } else {
                    vector[random.pick(ids)] += UInt64(1 + random.below(3))
                }
                lags.localRead(vector)
                local = vector
            }
            let expected = Self.expected(holds: holds, local: local)
            #expect(lags.peers == expected, "seed \(seed), step \(step)")
            guard lags.peers == expected else { return }
        }
    }

    @Test func aPeerAheadOfTheStoreLagsByNothingAndAnAuthorTheStoreNoLongerHoldsCountsNoMore() {
        let (a, b, peer) = (
            AuthorID(bytes: [UInt8](repeating: 1, count: 32))!, AuthorID(bytes: [UInt8](repeating: 2, count: 32))!,
            AuthorID(bytes: [UInt8](repeating: 3, count: 32))!
        )
        var lags = PeerLags()
        lags.opened(peer)
        #expect(lags.peers == [SyncStatus.PeerLag(peer: peer, lag: 0)], "no store vector read yet")
        lags.localRead(VersionVector([a: 5, b: 3]))
        #expect(lags.peers.map(\.lag) == [8])
        lags.peer(peer, holds: VersionVector([a: 9]))
        #expect(lags.peers.map(\.lag) == [3], "ahead on a: only b's 3 count")
        lags.localRead(VersionVector([a: 7]))
        #expect(lags.peers.map(\.lag) == [0], "b left the store's vector; the peer is ahead on a")
        lags.localRead(VersionVector([a: 12, b: 1]))
        #expect(lags.peers.map(\.lag) == [4])
        lags.closed(peer)
        #expect(lags.peers.isEmpty)
    }
}
