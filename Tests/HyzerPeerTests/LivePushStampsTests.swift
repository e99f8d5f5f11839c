import Testing

@testable import HyzerBench

/// How the bench times one live push from its two commits (docs/performance.md, "Live changes").
@Suite struct LivePushStampsTests {
    private func push(start: UInt64?, end: UInt64?, received: UInt64?) -> SyncBenchmark.PushStamps {
        var stamps = SyncBenchmark.PushStamps(target: 7)
        if let start, let end { stamps.sent = (start, end) }
        stamps.received = received
        return stamps
    }

    @Test func countsFromTheEndOfTheSendersCommit() {
        #expect(push(start: 1_000_000, end: 1_200_000, received: 2_200_000).milliseconds == 1.0)
    }

    @Test func aPeerThatCommitsBeforeTheSendersWriterReturnsCountsFromTheCommitsStart() {
        #expect(push(start: 1_000_000, end: 1_900_000, received: 1_500_000).milliseconds == 0.5)
    }

    @Test func aPushWithoutBothStampsOrInTheWrongOrderIsNotTimed() {
        #expect(push(start: nil, end: nil, received: 2_000_000).milliseconds == nil)
        #expect(push(start: 1_000_000, end: 1_200_000, received: nil).milliseconds == nil)
        #expect(push(start: 1_000_000, end: 1_200_000, received: 900_000).milliseconds == nil)
    }
}
