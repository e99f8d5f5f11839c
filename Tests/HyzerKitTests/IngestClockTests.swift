import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Synchronization
import Testing

/// docs/store.md, "Bounded transactions": an ingest divides its work into transactions by the
/// `IngestClock` its replica was opened with, and pauses between two only through it. The same
/// segments end in the same store however the clock splits them.
@Suite struct IngestClockTests {
    /// A clock that moves `step` each time it is read, and counts the pauses asked of it.
    final class SteppingClock: IngestClock {
        private let state = Mutex((now: Duration.zero, pauses: [Duration]()))
        let step: Duration

        init(step: Duration) { self.step = step }

        func reading() -> Duration {
            state.withLock { state in
                state.now += step
                return state.now
            }
        }

        func pause(for duration: Duration) { state.withLock { $0.pauses.append(duration) } }

        var pauses: [Duration] { state.withLock { $0.pauses } }
    }

    /// Four authors' segments, and a fresh replica ingesting them with `clock`.
    static func ingest(step: Duration) throws -> (report: IngestReport, vector: VersionVector, pauses: [Duration]) {
        let senders = try (0..<4).map { try TestReplica("sender-\($0)", owner: "Player \($0)", keySeed: 70 + UInt8($0)) }
        let segments = try senders.flatMap { try $0.replica.delta(above: VersionVector()) }
        try #require(segments.count == 4)
        let directory = TemporaryDirectory("hyzer-kit-ingest-clock")
        let clock = SteppingClock(step: step)
        let receiver = try Replica.create(
            at: directory.path("store"), name: "receiver", kind: .laptop, clock: FixedClock(milliseconds: baseTime), ingestClock: clock,
            keys: seededKeys(69))
        let report = try receiver.ingest(segments)
        return (report, try receiver.versionVector(), clock.pauses)
    }

    @Test func aClockThatStandsStillIngestsInOneTransaction() throws {
        let (report, _, pauses) = try Self.ingest(step: .zero)
        #expect(report.opsApplied == 8, "each sender's device record and player")
        #expect(pauses.isEmpty, "one transaction: no pause")
    }

    @Test func theBudgetIsSpentByTheInjectedClock() throws {
        // 30 ms a read: two segments spend the 50 ms budget, so four take two transactions.
        let twoEach = try Self.ingest(step: .milliseconds(30))
        #expect(twoEach.pauses == [.milliseconds(2)])
        // 60 ms a read: every segment spends it, so four take four transactions and three pauses.
        let oneEach = try Self.ingest(step: .milliseconds(60))
        #expect(oneEach.pauses == Array(repeating: .milliseconds(2), count: 3))
        let whole = try Self.ingest(step: .zero)
        #expect(oneEach.report == whole.report && twoEach.report == whole.report)
        #expect(oneEach.vector == whole.vector && twoEach.vector == whole.vector)
    }
}
