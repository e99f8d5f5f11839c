import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// Range-based reconciliation of two version vectors (docs/sync-protocol.md, "Reconciliation"),
/// both sides' state machines played against each other with no session around them.
@Suite struct ReconciliationTests {
    /// What a reconciliation of `mine` with `theirs` came to.
    struct Outcome {
        var learned: (mine: VersionVector, theirs: VersionVector)
        /// Steps each side sent after its hello.
        var steps = 0
        /// Bytes of both hellos and every step, as encoded messages.
        var bytes = 0
    }

    /// Plays both sides, each step answered in turn, as two sessions would.
    static func reconcile(_ mine: VersionVector, _ theirs: VersionVector) throws -> Outcome {
        var (a, b) = (Reconciliation(local: mine), Reconciliation(local: theirs))
        let (helloA, helloB) = (a.greeting, b.greeting)
        var bytes = [SyncMessage.hello(mine, live: false), .hello(theirs, live: false)].reduce(0) { $0 + $1.encoded().count }
        // What each side sends the other, in order.
        var (fromA, fromB) = (
            try a.greeted(helloB, wholeFingerprint: b.wholeFingerprint), try b.greeted(helloA, wholeFingerprint: a.wholeFingerprint)
        )
        var steps = 0
        while !fromA.isEmpty || !fromB.isEmpty {
            steps += 1
            let (sentA, sentB) = (fromA, fromB)
            for step in sentA + sentB { bytes += SyncMessage.reconcile(step).encoded().count }
            fromB = try sentA.flatMap { try b.receive($0) }
            fromA = try sentB.flatMap { try a.receive($0) }
            #expect(steps < 40, "no end")
            if steps >= 40 { break }
        }
        #expect(a.isComplete && b.isComplete)
        return Outcome(learned: (a.peerVector, b.peerVector), steps: steps, bytes: bytes)
    }

    static func randomAuthor(_ rng: inout SplitMix64) -> AuthorID {
        AuthorID(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: rng.next()) { Array($0) } })!
    }

    static func randomEntry(_ rng: inout SplitMix64) -> VersionVector.Entry {
        let sequence = UInt64(1 + rng.below(5_000))
        let hash = withUnsafeBytes(of: rng.next()) { Array($0) }
        return .init(sequence: sequence, hashPrefix: hash, frozenAt: rng.chance(5) ? UInt64(1 + rng.below(Int(sequence))) : nil)
    }

    /// Two vectors of `count` shared authors, which then differ in `differing` authors: changed
    /// entries, and authors only one side holds.
    static func pair(count: Int, differing: Int, seed: UInt64) -> (VersionVector, VersionVector) {
        var rng = SplitMix64(seed: seed)
        var shared: [AuthorID: VersionVector.Entry] = [:]
        for _ in 0..<count { shared[randomAuthor(&rng)] = randomEntry(&rng) }
        var (mine, theirs) = (shared, shared)
        let authors = shared.keys.sorted()
        for _ in 0..<differing {
            switch rng.below(4) {
            case 0 where !authors.isEmpty: mine[rng.pick(authors)] = randomEntry(&rng)
            case 1 where !authors.isEmpty: theirs[rng.pick(authors)] = nil
            case 2: mine[randomAuthor(&rng)] = randomEntry(&rng)
            default: theirs[randomAuthor(&rng)] = randomEntry(&rng)
            }
        }
        return (VersionVector(entries: mine), VersionVector(entries: theirs))
    }

    @Test(arguments: [
        (0, 0), (1, 0), (0, 3), (16, 1), (151, 0), (151, 1), (151, 10), (1_000, 0), (1_000, 1), (1_000, 10), (1_000, 100),
        (2_000, 200), (300, 300),
    ])
    func eachSideLearnsTheOthersVectorExactly(count: Int, differing: Int) throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let (mine, theirs) = Self.pair(count: count, differing: differing, seed: seed &* 7_919 &+ UInt64(count))
            let outcome = try Self.reconcile(mine, theirs)
            #expect(outcome.learned.mine == theirs, "seed \(seed)")
            #expect(outcome.learned.theirs == mine, "seed \(seed)")
            if mine == theirs { #expect(outcome.steps == 0, "equal vectors: the hellos alone") }
        }
    }

    /// What reconciliation costs, in bytes of messages (no frames): equal vectors cost the two
    /// hellos at any size, one differing author a few hundred bytes, a hundred a few kilobytes.
    @Test func theCostGrowsWithTheDifferencesNotTheAuthors() throws {
        for count in [151, 1_000] {
            let (equal, _) = Self.pair(count: count, differing: 0, seed: 1)
            let noOp = try Self.reconcile(equal, equal)
            #expect(noOp.bytes <= 2 * (14 + 16 * 5), "\(count) authors: \(noOp.bytes) bytes")
            let (mine, theirs) = Self.pair(count: count, differing: 1, seed: 2)
            let one = try Self.reconcile(mine, theirs)
            #expect(one.bytes <= 800, "\(count) authors, one differing: \(one.bytes) bytes")
            #expect(one.steps <= 3)
        }
        let (mine, theirs) = Self.pair(count: 1_000, differing: 100, seed: 3)
        let hundred = try Self.reconcile(mine, theirs)
        #expect(hundred.bytes < 42 * 1_000, "below one whole vector: \(hundred.bytes) bytes")
    }

    @Test func aStepThatIsNotTheOneTheSummariesCallForIsRefused() throws {
        let (mine, theirs) = Self.pair(count: 200, differing: 5, seed: 4)
        var (a, b) = (Reconciliation(local: mine), Reconciliation(local: theirs))
        let stepB = try #require(try b.greeted(a.greeting, wholeFingerprint: a.wholeFingerprint).first)
        _ = try a.greeted(b.greeting, wholeFingerprint: b.wholeFingerprint)
        var wrong = stepB
        wrong.splits[AuthorRange.root.children[0].children[0]] = Array(repeating: RangeSummary(count: 1, fingerprint: 1), count: 16)
        #expect(throws: Reconciliation.OutOfStep.self) { _ = try a.receive(wrong) }
        var missing = stepB
        if let first = missing.splits.keys.min() { missing.splits[first] = nil } else { missing.entries[missing.entries.keys.min()!] = nil }
        var again = Reconciliation(local: mine)
        _ = try again.greeted(b.greeting, wholeFingerprint: b.wholeFingerprint)
        #expect(throws: Reconciliation.OutOfStep.self) { _ = try again.receive(missing) }
        var fresh = Reconciliation(local: mine)
        #expect(throws: Reconciliation.OutOfStep.self) { _ = try fresh.greeted([], wholeFingerprint: 0) }
        var early = Reconciliation(local: mine)
        #expect(throws: Reconciliation.OutOfStep.self, "a step before the greeting") { _ = try early.receive(stepB) }
    }

    @Test func stepsRoundTripAndAnEntryOutsideItsRangeIsMalformed() throws {
        let (mine, theirs) = Self.pair(count: 300, differing: 30, seed: 5)
        var (a, b) = (Reconciliation(local: mine), Reconciliation(local: theirs))
        _ = try b.greeted(a.greeting, wholeFingerprint: a.wholeFingerprint)
        let step = try #require(try a.greeted(b.greeting, wholeFingerprint: b.wholeFingerprint).first)
        let message = SyncMessage.reconcile(step)
        #expect(try SyncMessage(decoding: message.encoded()) == message)

        let range = try #require(AuthorRange(depth: 2, prefix: 0xab00_0000_0000_0000))
        let outside = VersionVector([AuthorID(bytes: [0xac] + [UInt8](repeating: 0, count: 31))!: 3])
        let bad = SyncMessage.reconcile(ReconcileStep(splits: [:], entries: [range: outside]))
        #expect(throws: ByteDecodingError.self) { _ = try SyncMessage(decoding: bad.encoded()) }
        #expect(AuthorRange(depth: 1, prefix: 0x0100_0000_0000_0000) == nil, "a bit below the range's depth")
        #expect(AuthorRange(depth: 17, prefix: 0) == nil)
        #expect(range.children.allSatisfy { range.lowerBound <= $0.lowerBound && $0.upperBound <= range.upperBound })
        #expect(AuthorRange.root.children.last?.upperBound == .max)
    }

    @Test(
        arguments: [
            [1, 0, 0], [8, 0] + [UInt8](repeating: 0, count: 16),
            [10, 0] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0, count: 16),
        ] as [[UInt8]])
    func anOlderBuildsHelloIsRefusedClearly(older: [UInt8]) throws {
        // Tag 1: not live, an empty whole vector; tag 8: not live, 16 empty summaries; tag 10:
        // not live, a whole fingerprint and 16 empty summaries, but no heartbeat.
        var session = SyncSession(mode: .oneShot)
        _ = session.start(localVector: VersionVector())
        #expect(session.receive(try SyncMessage(decoding: older)) == [.fail(.olderPeer)])
        #expect(SyncFailure.olderPeer.description.contains("update it"))
    }

    /// Two entries of one author whose fingerprints agree in their low 32 bits: found by a
    /// birthday search over its sequence numbers (about 2¹⁶ of them).
    static func collidingEntries(of author: AuthorID) -> (VersionVector.Entry, VersionVector.Entry) {
        var seen: [UInt32: UInt64] = [:]
        var sequence: UInt64 = 1
        while true {
            let low = UInt32(truncatingIfNeeded: VectorSummary.fingerprint(of: author, .init(sequence: sequence)))
            if let earlier = seen[low] { return (.init(sequence: earlier), .init(sequence: sequence)) }
            seen[low] = sequence
            sequence += 1
        }
    }

    /// A difference the 32-bit summaries cannot see (an author whose two entries' fingerprints
    /// agree in 32 bits) is caught by the whole vectors' 64-bit fingerprints: both sides then
    /// exchange whole vectors once, and each learns the other's exactly.
    @Test func aDifferenceTheRangeSummariesHideIsFoundByTheWholeFingerprint() throws {
        var rng = SplitMix64(seed: 99)
        let author = Self.randomAuthor(&rng)
        let (one, other) = Self.collidingEntries(of: author)
        let (shared, _) = Self.pair(count: 150, differing: 0, seed: 6)
        var mine = shared.entries
        var theirs = shared.entries
        mine[author] = one
        theirs[author] = other
        let (a, b) = (VersionVector(entries: mine), VersionVector(entries: theirs))
        #expect(VectorSummary(a).summary(of: .root) == VectorSummary(b).summary(of: .root), "the summaries agree")
        #expect(VectorSummary(a).wholeFingerprint != VectorSummary(b).wholeFingerprint)
        let outcome = try Self.reconcile(a, b)
        #expect(outcome.learned.mine == b)
        #expect(outcome.learned.theirs == a)
        #expect(outcome.steps == 1, "one step: the whole vectors")
    }

    /// A peer whose whole vector does not match the fingerprint its greeting carried is out of step.
    @Test func aPeerWhoseVectorDoesNotMatchItsFingerprintIsRefused() throws {
        let (mine, theirs) = Self.pair(count: 40, differing: 0, seed: 7)
        var a = Reconciliation(local: mine)
        let b = Reconciliation(local: theirs)
        let steps = try a.greeted(b.greeting, wholeFingerprint: b.wholeFingerprint ^ 1)
        #expect(steps.count == 1 && steps[0].entries.keys.contains(.root), "a sends its whole vector")
        #expect(throws: Reconciliation.OutOfStep.self) {
            _ = try a.receive(ReconcileStep(splits: [:], entries: [.root: theirs]))
        }
    }
}
