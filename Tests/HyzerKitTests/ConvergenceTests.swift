import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/replication.md, "State": merge is set union — commutative, associative, idempotent — so
/// replicas that hold the same ops show the same state, whatever order, duplication or
/// batching brought the ops.
@Suite struct ConvergenceTests {
    /// Four devices that play one round and edit the same registers concurrently:
    /// - Ava's phone (owns Ava, organizes), Ben's phone (owns Ben), Ava's watch (linked to
    ///   Ava, its clock five seconds behind), Dee's laptop (owns Dee, its clock a minute ahead);
    /// - a round on Maple Hill for Ava, Ben, Cal and guest Gus, with equal and unequal scores
    ///   from two devices on one (player, hole), a correction, and an organizer's resolution;
    /// - three concurrent renames of Maple Hill and two concurrent pars of its hole 4;
    /// - a second round, finished with `force`, that only Ava's phone knows at first.
    ///
    /// Every delta taken along the way is kept in `pool`, with the vectors seen along the way.
    final class Scenario: Sendable {
        enum Stop: Sendable { case afterConcurrentEdits, atTheEnd }

        let stores: [StoreTemplate]
        let round: Round
        let pool: [AuthorSegment]
        let vectors: [VersionVector]
        private let originals: [TestReplica]

        static let starts: [UInt64] = [baseTime, baseTime + 2_000, baseTime - 5_000, baseTime + 60_000]
        static let full = Result { try Scenario(stop: .atTheEnd) }
        static let concurrent = Result { try Scenario(stop: .afterConcurrentEdits) }

        private init(stop: Stop) throws {
            let ava = try TestReplica("ava-phone", owner: "Ava", keySeed: 61, start: Self.starts[0])
            let ben = try TestReplica("ben-phone", owner: "Ben", keySeed: 62, start: Self.starts[1])
            let watch = try TestReplica("ava-watch", kind: .watch, keySeed: 63, start: Self.starts[2])
            let laptop = try TestReplica("dee-laptop", kind: .laptop, owner: "Dee", keySeed: 64, start: Self.starts[3])
            let all = [ava, ben, watch, laptop]
            var pool: [AuthorSegment] = []
            var vectors: [VersionVector] = []
            var captured = [VersionVector](repeating: VersionVector(), count: all.count)
            /// What each replica learned or wrote since the last capture, as deltas that end
            /// at its heads of the moment.
            func capture() throws {
                for (index, test) in all.enumerated() {
                    pool += try test.replica.delta(above: captured[index])
                    captured[index] = try test.replica.versionVector()
                    vectors.append(captured[index])
                }
            }

            // Each alone.
            try ava.replica.addPlayer(name: "Cal")
            try ben.replica.addPlayer(name: "Eve")
            try laptop.replica.addCourse(name: "Park", pars: [3, 4, 3, 5])
            try capture()

            // Everyone meets; the watch is linked; the round starts.
            try syncAll(all)
            try ava.replica.linkDevice("ava-watch", owner: "Ava")
            round = try ava.replica.startRound(course: "Maple Hill", players: ["Ava", "Ben", "Cal"], guests: ["Gus"])
            try capture()
            try syncAll(all)

            // Concurrent edits: nobody syncs.
            let id = round.id.lowercased
            try ava.replica.recordScore(round: id, player: "Ava", hole: 1, strokes: 3)
            try ava.replica.recordScore(round: id, player: "Ava", hole: 2, strokes: 3)
            let avaHole3 = try ava.replica.recordScore(round: id, player: "Ava", hole: 3, strokes: 4)
            try ava.replica.recordScore(round: id, player: "Ben", hole: 1, strokes: 4)
            try ava.replica.recordScore(round: id, player: "Cal", hole: 1, strokes: 3)
            let gus = try ava.replica.recordScore(round: id, player: "Gus", hole: 1, strokes: 5)
            try ava.replica.correct(event: gus.id.lowercased, strokes: 4)

            try ben.replica.recordScore(round: id, player: "Ben", hole: 1, strokes: 4)
            try ben.replica.recordScore(round: id, player: "Cal", hole: 1, strokes: 4)
            try ben.replica.recordScore(round: id, player: "Ben", hole: 2, strokes: 3)
            try ben.replica.setPar(course: "Maple Hill", hole: 4, par: 5)
            try ben.replica.renameCourse("Maple Hill", to: "Maple Hill Park")

            try watch.replica.recordScore(round: id, player: "Ben", hole: 2, strokes: 4)
            try watch.replica.setPar(course: "Maple Hill", hole: 4, par: 3)
            try watch.replica.renameCourse("Maple Hill", to: "Maple")

            try laptop.replica.renameCourse("Maple Hill", to: "MH")
            try laptop.replica.setPar(course: "Park", hole: 2, par: 3)
            try laptop.replica.addPlayer(name: "Fay")
            try capture()

            if stop == .atTheEnd {
                // The watch hears from both phones and resolves Cal's hole 1; Ava corrects her
                // hole 3 and plays and finishes a second round alone.
                try watch.replica.pull(from: ava.replica)
                try watch.replica.pull(from: ben.replica)
                try watch.replica.resolve(round: id, player: "Cal", hole: 1, strokes: 4)
                try ava.replica.correct(event: avaHole3.id.lowercased, strokes: 3)
                let second = try ava.replica.startRound(course: "Park", players: ["Ava", "Dee"])
                for (hole, strokes) in [3, 4, 2, 5].enumerated() {
                    try ava.replica.recordScore(round: second.id.lowercased, player: "Ava", hole: hole + 1, strokes: strokes)
                }
                try ava.replica.finishRound(second.id.lowercased, force: true)
                try capture()
            }
            // And every replica's whole log, which overlaps all the rest.
            for test in all { pool += try test.replica.delta(above: VersionVector()) }

            self.pool = pool
            self.vectors = vectors
            originals = all
            stores = try zip(all, Self.starts).map { test, start in try StoreTemplate(closing: test, start: start + 1_000_000) }
        }

        /// Fresh copies of the four replicas, in the order Ava's phone, Ben's phone, watch, laptop.
        func copies() throws -> [TestReplica] {
            try stores.map { try $0.copy() }
        }
    }

    /// The state every replica must end in: the scenario's replicas, synced pairwise.
    static let reference = Result<Snapshot, any Error> {
        let replicas = try Scenario.full.get().copies()
        try syncAll(replicas)
        return try snapshot(replicas[0].replica)
    }

    /// A new device that holds nothing but its own device record, to copy from.
    final class Observer: Sendable {
        let store: StoreTemplate
        private let original: TestReplica

        static let shared = Result { try Observer() }

        private init() throws {
            original = try TestReplica("observer", kind: .laptop, keySeed: 65, start: baseTime + 7_000)
            store = try StoreTemplate(closing: original, start: baseTime + 8_000)
        }
    }

    /// The state the scenario's replicas and a new observer must end in: all five synced pairwise.
    static let referenceWithObserver = Result<Snapshot, any Error> {
        let replicas = try Scenario.full.get().copies() + [Observer.shared.get().store.copy()]
        try syncAll(replicas)
        return try snapshot(replicas[0].replica)
    }

    // MARK: The end state

    @Test func pairwiseSyncConvergesToWhatTheRulesSay() throws {
        let replicas = try Scenario.full.get().copies()
        try syncAll(replicas)
        let round = try Scenario.full.get().round
        let expected = try Self.reference.get()

        for test in replicas {
            #expect(try snapshot(test.replica) == expected)
            #expect(try test.replica.status().pendingOps == 0)
            #expect(try test.replica.verify().isIntact)
        }

        let replica = replicas[0].replica
        // The laptop's rename carries the greatest clock (its wall clock runs a minute ahead).
        let mapleHill = try #require(try replica.course(round.courseID))
        #expect(mapleHill.name == "MH")
        #expect(try replica.courses().map(\.name) == ["DeLaveaga", "MH", "Morley Field", "Park"])
        // The round keeps the pars and name it copied when it started.
        let evaluation = try #require(try replica.roundView(round.id)).evaluation
        #expect(evaluation.round.pars[3] == 4)
        #expect(evaluation.round.courseName == "Maple Hill")
        // Ben's hole 1 (4 and 4) merged; Cal's hole 1 resolved; Gus's hole 1 corrected; Ben's
        // hole 2 (3 against 4) is the only discrepancy.
        #expect(evaluation.discrepancies.map { "\($0.name) \($0.hole)" } == ["Ben 2"])
        let strokes = { (name: String, hole: Int) in
            evaluation.score(player: round.participants.first { $0.name == name }!.id, hole: hole).strokes
        }
        #expect(strokes("Ben", 1) == 4)
        #expect(strokes("Cal", 1) == 4)
        #expect(strokes("Gus", 1) == 4)
        #expect(strokes("Ava", 3) == 3)
        #expect(try replica.history().map(\.course) == ["Park"])
        #expect(try replica.players().map(\.displayName) == ["Ava", "Ben", "Cal", "Dee", "Eve", "Fay"])
    }

    // MARK: Any order, duplication and batching

    static let seeds: [UInt64] = [1, 2, 3, 5, 8, 13]

    @Test(arguments: seeds)
    func anyDeliveryOrderConverges(seed: UInt64) throws {
        let scenario = try Scenario.full.get()
        // The scenario's four replicas, and a new device that starts with nothing but its own op.
        let replicas = try scenario.copies() + [Observer.shared.get().store.copy()]
        let pool = try scenario.pool + replicas[4].replica.delta(above: VersionVector())
        var random = SplitMix64(seed: seed)
        var rejected: [IngestError] = []
        var total = IngestReport()

        // The new device first hears half the old deltas, shuffled: many arrive above a gap.
        for batch in random.batches(random.shuffled(pool.filter { _ in random.chance(50) }), maximum: 3) {
            let report = try replicas[4].replica.ingest(batch)
            rejected += report.rejected
            total += report
        }
        // Random exchanges: any source to any target, above the target's vector, above nothing
        // or above a vector from the past; any subset of authors; duplicated; in batches.
        for _ in 0..<30 {
            let target = random.pick(replicas).replica
            let source = random.pick(replicas).replica
            var segments: [AuthorSegment]
            switch random.below(4) {
            case 0: segments = try source.delta(above: target.versionVector())
            case 1: segments = try source.delta(above: VersionVector())
            case 2: segments = try source.delta(above: random.pick(scenario.vectors))
            default: segments = (0..<4).map { _ in random.pick(pool) }  // old deltas, often above a gap
            }
            segments = segments.filter { _ in random.chance(70) }
            if random.chance(25) { segments += segments }
            for batch in random.batches(random.shuffled(segments), maximum: 3) {
                let report = try target.ingest(batch)
                rejected += report.rejected
                total += report
            }
        }
        // Then every replica gets the whole pool, shuffled, partly duplicated, in batches.
        for test in random.shuffled(replicas) {
            let deliveries = random.shuffled(pool + pool.filter { _ in random.chance(25) })
            for batch in random.batches(deliveries, maximum: 4) {
                let report = try test.replica.ingest(batch)
                rejected += report.rejected
                total += report
            }
        }

        #expect(rejected == [])
        #expect(total.segmentsPending > 0, "this order put some ops above a gap")
        let expected = try Self.referenceWithObserver.get()
        for test in replicas {
            let actual = try snapshot(test.replica)
            #expect(actual.digest == expected.digest)
            #expect(actual.versionVector == expected.versionVector)
            #expect(actual.views == expected.views)
            #expect(try test.replica.status().pendingOps == 0)
        }
        #expect(try replicas[Int(seed % 5)].replica.verify().isIntact)
    }

    /// A new device receives each author's whole log, one author at a time, in all 24 orders.
    @Test func everyOrderOfAuthorsGivesTheSameState() throws {
        let scenario = try Scenario.full.get()
        let template = try Observer.shared.get().store
        let logs = try scenario.stores[0].copy().replica.delta(above: VersionVector())
        #expect(logs.count == 4)

        var states: Set<String> = []
        for order in permutations(of: Array(logs.indices)) {
            let observer = try template.copy()
            for index in order {
                #expect(try observer.replica.ingest([logs[index]]).rejected == [])
            }
            let state = try snapshot(observer.replica)
            states.insert(state.digest + state.views)
        }
        #expect(states.count == 1, "\(states.count) different states from 24 orders")
    }

    private func permutations(of elements: [Int]) -> [[Int]] {
        guard elements.count > 1 else { return [elements] }
        return elements.indices.flatMap { index in
            var rest = elements
            let first = rest.remove(at: index)
            return permutations(of: rest).map { [first] + $0 }
        }
    }

    // MARK: The merge laws, on whole states

    /// Pairs and triples of the four replicas (Ava's phone 0, Ben's phone 1, watch 2, laptop 3)
    /// right after their concurrent edits, before they sync.
    static let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    static let triples = [(0, 1, 2), (1, 2, 3), (3, 0, 2), (2, 3, 1)]

    /// `target ⊔ source`: the target ingests what the source holds above the target's vector.
    @discardableResult
    private func merge(_ target: TestReplica, _ source: TestReplica) throws -> IngestReport {
        let report = try target.replica.pull(from: source.replica)
        #expect(report.rejected == [])
        return report
    }

    @Test(arguments: pairs)
    func mergeIsCommutative(x: Int, y: Int) throws {
        let scenario = try Scenario.concurrent.get()
        let xy = try scenario.stores[x].copy()
        let yForXY = try scenario.stores[y].copy()
        let yx = try scenario.stores[y].copy()
        let xForYX = try scenario.stores[x].copy()
        try merge(xy, yForXY)  // X ⊔ Y
        try merge(yx, xForYX)  // Y ⊔ X

        let left = try snapshot(xy.replica)
        let right = try snapshot(yx.replica)
        #expect(left.digest == right.digest)
        #expect(left.versionVector == right.versionVector)
        #expect(left.views == right.views)
    }

    @Test(arguments: pairs)
    func mergeIntoAThirdReplicaIsCommutative(x: Int, y: Int) throws {
        let scenario = try Scenario.concurrent.get()
        let target = (0..<4).first { $0 != x && $0 != y }!
        let first = try scenario.stores[target].copy()
        let second = try scenario.stores[target].copy()
        let sourceX = try scenario.stores[x].copy()
        let sourceY = try scenario.stores[y].copy()
        try merge(first, sourceX)
        try merge(first, sourceY)  // (T ⊔ X) ⊔ Y
        try merge(second, sourceY)
        try merge(second, sourceX)  // (T ⊔ Y) ⊔ X
        #expect(try snapshot(first.replica) == snapshot(second.replica))
    }

    @Test(arguments: pairs)
    func mergeIsIdempotent(x: Int, y: Int) throws {
        let scenario = try Scenario.concurrent.get()
        let target = try scenario.stores[x].copy()
        let source = try scenario.stores[y].copy()

        // X ⊔ X = X
        let alone = try snapshot(target.replica)
        let own = try target.replica.ingest(target.replica.delta(above: VersionVector()))
        #expect(own.opsApplied == 0)
        #expect(own.rejected == [])
        #expect(try snapshot(target.replica) == alone)

        // (X ⊔ Y) ⊔ Y = X ⊔ Y, and the same delta ingested twice is applied once.
        let delta = try source.replica.delta(above: target.replica.versionVector())
        let first = try target.replica.ingest(delta)
        #expect(first.opsApplied > 0)
        let once = try snapshot(target.replica)
        let again = try target.replica.ingest(delta)
        #expect(again.opsApplied == 0)
        #expect(again.opsAlreadyHeld == first.opsApplied)
        #expect(again.rejected == [])
        try merge(target, source)
        #expect(try snapshot(target.replica) == once)
    }

    @Test(arguments: triples)
    func mergeIsAssociative(x: Int, y: Int, z: Int) throws {
        let scenario = try Scenario.concurrent.get()
        // (X ⊔ Y) ⊔ Z
        let left = try scenario.stores[x].copy()
        try merge(left, try scenario.stores[y].copy())
        try merge(left, try scenario.stores[z].copy())
        // X ⊔ (Y ⊔ Z)
        let right = try scenario.stores[x].copy()
        let yz = try scenario.stores[y].copy()
        try merge(yz, try scenario.stores[z].copy())
        try merge(right, yz)

        let l = try snapshot(left.replica)
        let r = try snapshot(right.replica)
        #expect(l.digest == r.digest)
        #expect(l.versionVector == r.versionVector)
        #expect(l.views == r.views)
    }

    /// One delta, ingested whole, one segment per call, or in reverse: the same state.
    @Test(arguments: [(0, 1), (2, 3), (3, 0)])
    func howADeltaIsBatchedDoesNotMatter(x: Int, y: Int) throws {
        let scenario = try Scenario.concurrent.get()
        // Y first learns what everyone else did, so its delta holds several authors.
        let source = try scenario.stores[y].copy()
        for other in 0..<4 where other != y { try merge(source, try scenario.stores[other].copy()) }

        var states: [Snapshot] = []
        let base = try scenario.stores[x].copy()
        let delta = try source.replica.delta(above: base.replica.versionVector())
        #expect(delta.count == 3)
        for batches in [[delta], delta.map { [$0] }, delta.reversed().map { [$0] }, [Array(delta.reversed())]] {
            let target = try scenario.stores[x].copy()
            for batch in batches {
                #expect(try target.replica.ingest(batch).rejected == [])
            }
            states.append(try snapshot(target.replica))
        }
        for state in states.dropFirst() {
            #expect(state == states[0])
        }
    }

    // MARK: Last writer wins

    /// Two devices that never synced rename the same seeded course; the later clock wins,
    /// whatever order the renames arrive in, even when the earlier writer has the greater key.
    @Test(arguments: [(UInt8(66), UInt8(67)), (UInt8(67), UInt8(66))])
    func theLaterRenameWinsInEveryOrder(earlySeed: UInt8, lateSeed: UInt8) throws {
        let early = try TestReplica("early", owner: "Eli", keySeed: earlySeed, start: baseTime)
        let late = try TestReplica("late", keySeed: lateSeed, start: baseTime + 1_000)
        let round = try early.replica.startRound(course: "Morley Field", players: ["Eli"], guests: ["Gus"])
        try early.replica.setPar(course: "Morley Field", hole: 1, par: 5)
        try late.replica.setPar(course: "Morley Field", hole: 1, par: 4)
        try early.replica.renameCourse("Morley Field", to: "Early Name")
        try late.replica.renameCourse("Morley Field", to: "Late Name")

        let observerA = try TestReplica("observer", keySeed: 68, start: baseTime + 2_000)
        let observerB = try TestReplica("observer", keySeed: 68, start: baseTime + 2_000)
        try observerA.replica.pull(from: early.replica)
        try observerA.replica.pull(from: late.replica)
        try observerB.replica.pull(from: late.replica)
        try observerB.replica.pull(from: early.replica)
        try syncAll([early, late])

        for test in [early, late, observerA, observerB] {
            let course = try #require(try test.replica.courses().first { $0.isSeeded && $0.id == round.courseID })
            #expect(course.name == "Late Name")
            #expect(course.pars[0] == 4)
            #expect(try test.replica.roundView(round.id)?.round.pars[0] == 3, "the round keeps its copied par")
        }
        #expect(try snapshot(observerA.replica) == snapshot(observerB.replica))
    }

    /// Equal clocks: the greater author id (bytes) wins, on both replicas.
    @Test func equalClocksAreBrokenByAuthorBytes() throws {
        let directories = [TemporaryDirectory("hyzer-kit-tie"), TemporaryDirectory("hyzer-kit-tie")]
        let clock = FixedClock(milliseconds: baseTime)
        let first = try Replica.create(at: directories[0].path("store"), name: "one", kind: .phone, clock: clock, keys: seededKeys(69))
        let second = try Replica.create(at: directories[1].path("store"), name: "two", kind: .phone, clock: clock, keys: seededKeys(70))
        try first.renameCourse("DeLaveaga", to: "Name of \(first.author.short)")
        try second.renameCourse("DeLaveaga", to: "Name of \(second.author.short)")
        try syncAll([first, second])

        let winner = max(first.author, second.author)
        for replica in [first, second] {
            #expect(try replica.courses().contains { $0.name == "Name of \(winner.short)" })
        }
        #expect(try snapshot(first) == snapshot(second))
    }
}
