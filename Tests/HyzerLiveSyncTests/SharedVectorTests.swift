import Foundation
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// The store's vector and the delta above a peer's holdings after a change are read by the first
/// connection that asks and shared with the others; a later change makes the next asker read again.
@Suite struct SharedVectorTests {
    @Test func oneReadPerPublishedChange() throws {
        let signals = ConnectionSignals()
        let author = try #require(AuthorID(bytes: Array(repeating: 7, count: 32)))
        var reads = 0
        func read() -> VersionVector {
            reads += 1
            return VersionVector([author: UInt64(reads)])
        }
        signals.publish(.storeChanged)
        let first = signals.vectorAfterLatestChange(read)
        #expect(signals.vectorAfterLatestChange(read) == first)
        #expect(reads == 1)

        signals.publish(.tick)
        #expect(signals.vectorAfterLatestChange(read) == first, "a tick is not a change")

        signals.publish(.storeChanged)
        let second = signals.vectorAfterLatestChange(read)
        #expect(reads == 2)
        #expect(second[author] == 2)
        #expect(signals.vectorAfterLatestChange(read) == second)
    }

    @Test func oneDeltaReadPerPeerHoldingsAndChange() throws {
        let signals = ConnectionSignals()
        let author = try #require(AuthorID(bytes: Array(repeating: 7, count: 32)))
        var reads = 0
        func read(_ bytes: Int) -> () -> Delta {
            {
                reads += 1
                return Delta(
                    bundles: [[UInt8](repeating: UInt8(reads), count: bytes)], vector: VersionVector([author: UInt64(reads)]), ops: 1)
            }
        }
        let group = UUID()
        let holding = DeltaRequest(above: VersionVector([author: 1]), group: group, bytesMax: 1 << 20)
        let behind = DeltaRequest(above: VersionVector(), group: group, bytesMax: 1 << 20)
        signals.publish(.storeChanged)
        let first = signals.deltaAfterLatestChange(holding, read(100))
        #expect(signals.deltaAfterLatestChange(holding, read(100)).bundles == first.bundles)
        #expect(reads == 1, "peers that hold the same thing share one read")
        #expect(signals.deltaAfterLatestChange(behind, read(100)).bundles != first.bundles)
        #expect(reads == 2, "a peer that holds less gets its own delta")

        signals.publish(.storeChanged)
        #expect(signals.deltaAfterLatestChange(holding, read(100)).vector[author] == 3, "a new change is read afresh")
        #expect(reads == 3)
        // Requests hash by their vector's size: an equal one made apart shares; one of the same
        // size holding another author does not.
        let same = DeltaRequest(above: VersionVector([author: 1]), group: group, bytesMax: 1 << 20)
        #expect(signals.deltaAfterLatestChange(same, read(100)).vector[author] == 3)
        #expect(reads == 3, "an equal request made apart shares the read")
        let another = try #require(AuthorID(bytes: Array(repeating: 8, count: 32)))
        let elsewhere = DeltaRequest(above: VersionVector([another: 1]), group: group, bytesMax: 1 << 20)
        #expect(signals.deltaAfterLatestChange(elsewhere, read(100)).vector[author] == 4)
        #expect(reads == 4, "a request of the same size holding something else gets its own")

        let large = DeltaRequest(above: VersionVector(), group: UUID(), bytesMax: 1 << 20)
        _ = signals.deltaAfterLatestChange(large, read(ConnectionSignals.sharedDeltaBytesMax + 1))
        _ = signals.deltaAfterLatestChange(large, read(ConnectionSignals.sharedDeltaBytesMax + 1))
        #expect(reads == 6, "a large delta is not kept")
    }
}
