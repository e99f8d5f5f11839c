import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// The store's vector after a change is read by the first connection that asks and shared with
/// the others; a later change makes the next asker read again.
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
}
