import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/replication.md, "State", Clock: a hybrid logical clock per replica, advanced on every local
/// op and on every op received, never dragged more than ten minutes ahead of wall time.
@Suite struct ClockTests {
    @Test func localOpsAreOrderedWhenTheWallClockStandsStillOrGoesBack() throws {
        let directory = TemporaryDirectory("hyzer-kit-clock")
        let store = directory.path("store")
        let frozen = try Replica.create(
            at: store, name: "phone", kind: .phone, owner: "Ava", clock: FixedClock(milliseconds: baseTime), keys: seededKeys(81))
        let round = try frozen.startRound(course: "Morley Field", players: ["Ava"])
        let first = try frozen.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        let second = try frozen.recordScore(round: round.id.lowercased, player: "Ava", hole: 2, strokes: 3)
        #expect(first.createdAt == HLCTimestamp(physicalMilliseconds: baseTime, counter: 3), "device, owner, round, then this")
        #expect(second.createdAt == HLCTimestamp(physicalMilliseconds: baseTime, counter: 4))
        try frozen.close()

        // Reopened with a wall clock an hour behind: the clock is kept in the store.
        let behind = try Replica.open(at: store, clock: FixedClock(milliseconds: baseTime - 3_600_000))
        let third = try behind.recordScore(round: round.id.lowercased, player: "Ava", hole: 3, strokes: 3)
        #expect(third.createdAt == HLCTimestamp(physicalMilliseconds: baseTime, counter: 5))
        #expect(third.createdAt > second.createdAt)
    }

    @Test func aWallClockThatMovesOnGivesFreshReadings() throws {
        let test = try TestReplica("phone", owner: "Ava", keySeed: 82, start: baseTime)
        test.clock.set(baseTime + 60_000)
        let course = try test.replica.addCourse(name: "Park", pars: [3])
        #expect(course.createdAt == HLCTimestamp(physicalMilliseconds: baseTime + 60_000, counter: 0))
    }

    /// A sender whose wall clock runs `ahead` milliseconds ahead writes an op; the receiver's
    /// next op comes after it only when `ahead` is within ten minutes.
    @Test(arguments: [
        (ahead: UInt64(5 * 60_000), dragged: true),
        (ahead: UInt64(9 * 60_000), dragged: true),
        (ahead: UInt64(11 * 60_000), dragged: false),
        (ahead: UInt64(24 * 3_600_000), dragged: false),
    ])
    func aReceivedClockDragsTheLocalClockAtMostTenMinutesAhead(ahead: UInt64, dragged: Bool) throws {
        let receiver = try TestReplica("receiver", owner: "Rex", keySeed: 83, start: baseTime)
        let sender = try TestReplica("sender", keySeed: 84, start: baseTime + ahead)
        let remote = try sender.replica.addPlayer(name: "Ava")
        #expect(remote.createdAt.physicalMilliseconds == baseTime + ahead + 1)

        try receiver.replica.pull(from: sender.replica)
        let local = try receiver.replica.addCourse(name: "Park", pars: [3])

        #expect((local.createdAt > remote.createdAt) == dragged)
        if !dragged {
            #expect(local.createdAt.physicalMilliseconds < baseTime + 1_000, "the local clock stays on wall time")
        }
        if dragged {
            // The op keeps its own reading.
            #expect(try receiver.replica.players().first { $0.displayName == "Ava" }?.createdAt == remote.createdAt)
        } else {
            // Held, not applied, until the receiver's clock is within ten minutes of its stamp.
            #expect(try receiver.replica.players().map(\.displayName) == ["Rex"])
            #expect(try receiver.replica.status().heldSegments == 1)
            receiver.clock.set(baseTime + ahead - 9 * 60_000)
            #expect(try receiver.replica.ingest([]).opsApplied == 2, "its device record and Ava")
            #expect(try receiver.replica.players().first { $0.displayName == "Ava" }?.createdAt == remote.createdAt)
        }
    }
}
