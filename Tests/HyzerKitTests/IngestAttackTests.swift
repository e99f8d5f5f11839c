import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/replication.md, "Authors, logs and signatures" and "Version vectors": what ingest refuses,
/// what it keeps aside, and that a refused segment changes nothing.
@Suite struct IngestAttackTests {
    /// A sender with a few ops (device record, owner, players, a course) and a receiver that
    /// has none of them.
    final class Pair: Sendable {
        let sender: TestReplica
        let receiver: TestReplica

        init() throws {
            sender = try TestReplica("sender", owner: "Ava", keySeed: 51)
            receiver = try TestReplica("receiver", owner: "Rex", keySeed: 52, start: baseTime + 1_000)
            try sender.replica.addPlayer(name: "Ben")
            try sender.replica.addPlayer(name: "Cal")
            try sender.replica.addCourse(name: "Back Yard", pars: [3, 4, 3])
        }

        /// The sender's own segment, ops 1 to 5.
        func senderSegment() throws -> AuthorSegment {
            try #require(try sender.replica.delta(above: VersionVector()).first { $0.author == sender.author })
        }
    }

    // MARK: Tampering

    /// Ways to damage a segment in transit; each must fail the one signature check.
    enum Tampering: String, CaseIterable, Sendable {
        case firstTailFirstByte, firstTailLastByte, lastTailMiddleByte, signatureFirstByte, signatureLastByte
        case opDropped, opsSwapped, tailAppended

        func apply(to segment: AuthorSegment) -> AuthorSegment {
            var tails = segment.tails
            var signature = segment.lastSignature
            switch self {
            case .firstTailFirstByte: tails[0][0] ^= 0x01
            case .firstTailLastByte: tails[0][tails[0].count - 1] ^= 0x80
            case .lastTailMiddleByte: tails[tails.count - 1][tails[tails.count - 1].count / 2] ^= 0x10
            case .signatureFirstByte: signature[0] ^= 0x01
            case .signatureLastByte: signature[63] ^= 0x01
            case .opDropped: tails.remove(at: 1)
            case .opsSwapped: tails.swapAt(1, 2)
            case .tailAppended: tails.append(tails[1])
            }
            return AuthorSegment(
                author: segment.author, firstSequence: segment.firstSequence, previousHash: segment.previousHash,
                tails: tails, lastSignature: signature)
        }
    }

    @Test(arguments: Tampering.allCases)
    func aTamperedSegmentIsRefusedAndChangesNothing(_ tampering: Tampering) throws {
        let pair = try Pair()
        let segment = try pair.senderSegment()
        let tampered = tampering.apply(to: segment)
        let before = try Fingerprint(pair.receiver.replica)

        let report = try pair.receiver.replica.ingest([tampered])

        #expect(report.rejected == [.signatureMismatch(author: pair.sender.author, sequence: tampered.lastSequence)])
        #expect(report.opsApplied == 0)
        #expect(report.segmentsPending == 0)
        #expect(try Fingerprint(pair.receiver.replica) == before)
        #expect(try pair.receiver.replica.status().pendingOps == 0)
        #expect(try pair.receiver.replica.verify().isIntact)
        // The genuine segment still goes in afterwards.
        #expect(try pair.receiver.replica.ingest([segment]).opsApplied == 5)
    }

    /// A segment whose ops the receiver already holds, the very same ops, changes nothing and
    /// is not verified again; the same bytes with a tampered tail are still refused.
    @Test func aSegmentAlreadyHeldIsNotVerifiedAgainButATamperedOneIsRefused() throws {
        let pair = try Pair()
        let segment = try pair.senderSegment()
        #expect(try pair.receiver.replica.ingest([segment]).opsApplied == 5)
        let before = try Fingerprint(pair.receiver.replica)

        let badSignature = Tampering.signatureFirstByte.apply(to: segment)
        let held = try pair.receiver.replica.ingest([badSignature])
        #expect(held.rejected.isEmpty)
        #expect(held.opsAlreadyHeld == 5)
        #expect(held.opsApplied == 0)

        let badTail = Tampering.lastTailMiddleByte.apply(to: segment)
        let refused = try pair.receiver.replica.ingest([badTail])
        #expect(refused.rejected == [.signatureMismatch(author: pair.sender.author, sequence: segment.lastSequence)])
        #expect(try Fingerprint(pair.receiver.replica) == before)
        #expect(try pair.receiver.replica.verify().isIntact)
    }

    @Test func aTamperedPreviousHashIsRefused() throws {
        let pair = try Pair()
        let first = try #require(try pair.sender.replica.delta(above: VersionVector()).first { $0.author == pair.sender.author })
        try pair.receiver.replica.ingest([first])
        try pair.sender.replica.addPlayer(name: "Dee")
        let next = try #require(try pair.sender.replica.delta(above: pair.receiver.replica.versionVector()).first)
        #expect(next.firstSequence == 6)
        var previous = next.previousHash
        previous[0] ^= 0x01
        let before = try Fingerprint(pair.receiver.replica)

        let report = try pair.receiver.replica.ingest([
            AuthorSegment(
                author: next.author, firstSequence: next.firstSequence, previousHash: previous, tails: next.tails,
                lastSignature: next.lastSignature)
        ])

        #expect(report.rejected == [.signatureMismatch(author: pair.sender.author, sequence: 6)])
        #expect(try Fingerprint(pair.receiver.replica) == before)
        #expect(try pair.receiver.replica.status().forks.isEmpty, "a forged segment is no proof of a fork")
    }

    @Test func aFirstSegmentMustStartFromNothing() throws {
        let pair = try Pair()
        let segment = try pair.senderSegment()
        let before = try Fingerprint(pair.receiver.replica)
        let report = try pair.receiver.replica.ingest([
            AuthorSegment(
                author: segment.author, firstSequence: 1, previousHash: [UInt8](repeating: 7, count: 32), tails: segment.tails,
                lastSignature: segment.lastSignature)
        ])
        #expect(
            report.rejected == [.malformedSegment(author: pair.sender.author, reason: "its first op does not follow a valid previous op")])
        #expect(try Fingerprint(pair.receiver.replica) == before)
    }

    @Test func anEmptySegmentIsRefused() throws {
        let pair = try Pair()
        let segment = try pair.senderSegment()
        let report = try pair.receiver.replica.ingest([
            AuthorSegment(
                author: segment.author, firstSequence: 1, previousHash: segment.previousHash, tails: [],
                lastSignature: segment.lastSignature)
        ])
        #expect(report.rejected == [.emptySegment(author: pair.sender.author)])
    }

    @Test func aSegmentClaimedByAnotherAuthorIsRefused() throws {
        let pair = try Pair()
        let segment = try pair.senderSegment()
        let before = try Fingerprint(pair.receiver.replica)
        // The receiver's own key, and a key nobody has seen.
        for impostor in [pair.receiver.author, AuthorID(bytes: seededKeys(99).publicKey)!] {
            let report = try pair.receiver.replica.ingest([
                AuthorSegment(
                    author: impostor, firstSequence: segment.firstSequence, previousHash: segment.previousHash,
                    tails: segment.tails, lastSignature: segment.lastSignature)
            ])
            #expect(report.rejected == [.signatureMismatch(author: impostor, sequence: 5)])
        }
        // Re-signed by another key: a valid segment of that key, not of the sender.
        let thief = seededKeys(98)
        var previous = SignedOp.noPreviousHash
        var ops: [SignedOp] = []
        for (index, original) in try segment.verifiedOps().enumerated() {
            let op = rawOp(
                keys: thief, sequence: UInt64(index + 1), previousHash: previous, clock: try #require(original.clock),
                payload: try original.payload().get())
            ops.append(op)
            previous = op.hash
        }
        let stolen = AuthorSegment(
            author: segment.author, firstSequence: 1, previousHash: SignedOp.noPreviousHash, tails: ops.map(\.tail),
            lastSignature: ops.last!.signature!)
        #expect(try pair.receiver.replica.ingest([stolen]).rejected == [.signatureMismatch(author: pair.sender.author, sequence: 5)])
        #expect(try Fingerprint(pair.receiver.replica) == before)
    }

    @Test func oneBadSegmentDoesNotSpoilTheOthersOfABatch() throws {
        let pair = try Pair()
        let third = try TestReplica("third", owner: "Tia", keySeed: 53, start: baseTime + 2_000)
        let good = try third.replica.delta(above: VersionVector())
        let bad = Tampering.signatureFirstByte.apply(to: try pair.senderSegment())

        let report = try pair.receiver.replica.ingest([bad] + good)

        #expect(report.rejected == [.signatureMismatch(author: pair.sender.author, sequence: 5)])
        #expect(report.opsApplied == 2)
        #expect(try pair.receiver.replica.versionVector().heads == [pair.receiver.author: 2, third.author: 2])
    }

    // MARK: Gaps

    @Test func opsAboveAGapWaitThenApplyWhenItFills() throws {
        let sender = try TestReplica("sender", owner: "Ava", keySeed: 54)
        let receiver = try TestReplica("receiver", keySeed: 55, start: baseTime + 1_000)
        let early = try sender.replica.delta(above: VersionVector())  // ops 1–2
        try sender.replica.addPlayer(name: "Ben")
        try sender.replica.addPlayer(name: "Cal")
        try sender.replica.addCourse(name: "Back Yard", pars: [3, 3, 3])
        let late = try sender.replica.delta(above: VersionVector([sender.author: 2]))  // ops 3–5
        #expect(late.map(\.firstSequence) == [3])
        #expect(late.map(\.lastSequence) == [5])
        let emptyDigest = try receiver.replica.digest()

        let pending = try receiver.replica.ingest(late)
        #expect(pending.segmentsPending == 1)
        #expect(pending.opsApplied == 0)
        #expect(pending.rejected.isEmpty)
        #expect(try receiver.replica.status().pendingOps == 3)
        #expect(try receiver.replica.versionVector()[sender.author] == 0)
        #expect(try receiver.replica.digest() == emptyDigest, "pending ops are not part of the state yet")
        #expect(try receiver.replica.players().isEmpty)

        // The same pending segment again is still one pending segment.
        #expect(try receiver.replica.ingest(late).segmentsPending == 1)
        #expect(try receiver.replica.status().pendingOps == 3)

        let filled = try receiver.replica.ingest(early)
        #expect(filled.opsApplied == 5, "2 ops and the 3 waiting above them")
        #expect(filled.rejected.isEmpty)
        let status = try receiver.replica.status()
        #expect(status.pendingOps == 0)
        #expect(status.versionVector.heads == [sender.author: 5, receiver.author: 1])
        #expect(try receiver.replica.players().map(\.displayName) == ["Ava", "Ben", "Cal"])
        #expect(try receiver.replica.verify().isIntact)

        // Same state as a receiver that got everything in order.
        let inOrder = try TestReplica("receiver", keySeed: 55, start: baseTime + 1_000)
        try inOrder.replica.pull(from: sender.replica)
        #expect(try snapshot(inOrder.replica) == snapshot(receiver.replica))
    }

    @Test func severalGapsFillInAnyOrder() throws {
        let sender = try TestReplica("sender", owner: "Ava", keySeed: 56)
        var segments: [AuthorSegment] = []
        var vector = VersionVector()
        for name in ["Ben", "Cal", "Dee", "Eve"] {
            try sender.replica.addPlayer(name: name)
            try sender.replica.addPlayer(name: name + " Jr")
            let segment = try #require(try sender.replica.delta(above: vector).first)
            segments.append(segment)
            vector = try sender.replica.versionVector()
        }
        // ops 1–4, 5–6, 7–8, 9–10, delivered backwards.
        let receiver = try TestReplica("receiver", keySeed: 57, start: baseTime + 1_000)
        for segment in segments.reversed().dropLast() {
            #expect(try receiver.replica.ingest([segment]).segmentsPending == 1)
        }
        #expect(try receiver.replica.status().pendingOps == 6)
        #expect(try receiver.replica.ingest([segments[0]]).opsApplied == 10)
        #expect(try receiver.replica.versionVector()[sender.author] == 10)
        #expect(try receiver.replica.status().pendingOps == 0)
        #expect(try receiver.replica.players().count == 9)
    }

    // MARK: Replays

    @Test func replayingAnOldSegmentIsANoOp() throws {
        let pair = try Pair()
        let old = try pair.receiver.replica.pull(from: pair.sender.replica)
        #expect(old.opsApplied == 5)
        try pair.sender.replica.addPlayer(name: "Dee")
        try pair.receiver.replica.pull(from: pair.sender.replica)
        let before = try Fingerprint(pair.receiver.replica)

        let everything = try pair.sender.replica.delta(above: VersionVector())
        let replay = try pair.receiver.replica.ingest(everything + everything)

        #expect(replay.opsApplied == 0)
        #expect(replay.opsAlreadyHeld == 2 * 6)
        #expect(replay.rejected.isEmpty)
        #expect(try Fingerprint(pair.receiver.replica) == before)
    }

    // MARK: Forks

    /// Two stores restored from one backup: the same key, the same first op, then each writes
    /// its own op 2.
    final class Twins: Sendable {
        let original: Replica
        let restored: Replica
        let observer: TestReplica
        private let directories = [TemporaryDirectory("hyzer-kit-original"), TemporaryDirectory("hyzer-kit-restored")]

        init() throws {
            // Fixed clocks: both write the very same op 1.
            original = try Replica.create(
                at: directories[0].path("store"), name: "phone", kind: .phone, clock: FixedClock(milliseconds: baseTime),
                keys: seededKeys(58))
            restored = try Replica.create(
                at: directories[1].path("store"), name: "phone", kind: .phone, clock: FixedClock(milliseconds: baseTime),
                keys: seededKeys(58))
            try original.addPlayer(name: "Ava")
            try restored.addPlayer(name: "Zed")
            observer = try TestReplica("observer", keySeed: 59, start: baseTime + 1_000)
        }
    }

    @Test func aForkIsDetectedProvenAndItsAuthorRefused() throws {
        let twins = try Twins()
        let author = twins.original.author
        #expect(twins.restored.author == author)
        let observer = twins.observer.replica

        #expect(try observer.pull(from: twins.original).opsApplied == 2)
        let before = try Fingerprint(observer)

        let report = try observer.ingest(twins.restored.delta(above: VersionVector()))
        #expect(report.rejected == [.fork(author: author, sequence: 2)])
        #expect(report.opsApplied == 0)

        // The proof is kept and reported; the author is frozen at the fork point, where the
        // held branch's op 2 (Ava) no longer counts.
        let status = try observer.status()
        #expect(status.forks.map(\.author) == [author])
        #expect(status.forks.map(\.sequence) == [2])
        let verify = try observer.verify()
        #expect(verify.forks.map(\.author) == [author])
        #expect(verify.forks.map(\.sequence) == [2])
        #expect(verify.isIntact, "a fork is another replica's doing, not damage to this store")
        #expect(try Fingerprint(observer) != before)
        #expect(try observer.players().map(\.displayName) == [])
        let frozen = try Fingerprint(observer)

        // Further ops of that author are kept as evidence and change no view.
        try twins.original.addPlayer(name: "Ben")
        let more = try observer.ingest(twins.original.delta(above: observer.versionVector()))
        #expect(more.rejected.isEmpty)
        #expect(more.opsApplied == 0)
        #expect(try observer.digest() == frozen.digest)
        #expect(try snapshot(observer).views == frozen.views)
    }

    @Test func aForkAboveTheHeldHeadIsDetectedByItsPreviousHash() throws {
        let twins = try Twins()
        let observer = twins.observer.replica
        try observer.pull(from: twins.original)
        try twins.restored.addPlayer(name: "Yan")
        // Only the restored store's op 3, chained on its own op 2.
        let above = try twins.restored.delta(above: VersionVector([twins.restored.author: 2]))
        let report = try observer.ingest(above)
        #expect(report.rejected == [.fork(author: twins.original.author, sequence: 2)])
        #expect(try observer.status().forks.map(\.sequence) == [2])
    }

    /// Both branches of a fork wait above the same gap: filling it must apply one branch and
    /// record the fork, never lose the gap's ops.
    @Test
    func bothBranchesOfAForkWaitingAboveOneGap() throws {
        let directories = [TemporaryDirectory("hyzer-kit-original"), TemporaryDirectory("hyzer-kit-restored")]
        let clock = FixedClock(milliseconds: baseTime)
        let original = try Replica.create(at: directories[0].path("store"), name: "phone", kind: .phone, clock: clock, keys: seededKeys(58))
        let opOne = try original.delta(above: VersionVector())  // op 1, signed
        let restored = try Replica.create(at: directories[1].path("store"), name: "phone", kind: .phone, clock: clock, keys: seededKeys(58))
        try original.addPlayer(name: "Ava")
        try restored.addPlayer(name: "Zed")
        try restored.addPlayer(name: "Yan")
        let author = original.author
        let observer = try TestReplica("observer", keySeed: 59, start: baseTime + 1_000)

        let genuine = try original.delta(above: VersionVector([author: 1]))  // op 2
        let forked = try restored.delta(above: VersionVector([author: 1]))  // ops 2–3 of the other branch
        #expect(try observer.replica.ingest(genuine).segmentsPending == 1)
        #expect(try observer.replica.ingest(forked).segmentsPending == 1)

        let report = try observer.replica.ingest(opOne)
        #expect(report.rejected == [.fork(author: author, sequence: 2)])
        #expect(report.opsApplied == 2)
        #expect(try observer.replica.versionVector()[author] == 2)
        #expect(try observer.replica.status().forks.map(\.sequence) == [2])
        #expect(try observer.replica.status().pendingOps == 0)
    }

    /// Two branches of a fork with the same range wait above a gap: both are kept, and the fork
    /// is found when the gap fills.
    @Test
    func twoBranchesOfAForkOverTheSameRangeWaitingAboveOneGap() throws {
        let directories = [TemporaryDirectory("hyzer-kit-original"), TemporaryDirectory("hyzer-kit-restored")]
        let clock = FixedClock(milliseconds: baseTime)
        let original = try Replica.create(at: directories[0].path("store"), name: "phone", kind: .phone, clock: clock, keys: seededKeys(58))
        let opOne = try original.delta(above: VersionVector())
        let restored = try Replica.create(at: directories[1].path("store"), name: "phone", kind: .phone, clock: clock, keys: seededKeys(58))
        try original.addPlayer(name: "Ava")
        try restored.addPlayer(name: "Zed")
        let author = original.author
        let observer = try TestReplica("observer", keySeed: 59, start: baseTime + 1_000)

        #expect(try observer.replica.ingest(restored.delta(above: VersionVector([author: 1]))).segmentsPending == 1)
        #expect(try observer.replica.ingest(original.delta(above: VersionVector([author: 1]))).segmentsPending == 1)
        #expect(try observer.replica.status().pendingOps == 2, "both branches are kept")

        let report = try observer.replica.ingest(opOne)
        #expect(report.rejected == [.fork(author: author, sequence: 2)])
        #expect(try observer.replica.status().forks.map(\.sequence) == [2])
    }

    @Test func aForkThatWaitedAboveAGapIsDetectedWhenTheGapFills() throws {
        let twins = try Twins()
        let observer = twins.observer.replica
        try twins.restored.addPlayer(name: "Yan")
        let forkedAbove = try twins.restored.delta(above: VersionVector([twins.restored.author: 2]))  // op 3 on Zed
        #expect(try observer.ingest(forkedAbove).segmentsPending == 1)

        let report = try observer.ingest(twins.original.delta(above: VersionVector()))
        #expect(report.opsApplied == 2)
        #expect(report.rejected == [.fork(author: twins.original.author, sequence: 2)])
        #expect(try observer.status().pendingOps == 0)
        #expect(try observer.players().map(\.displayName) == [], "op 2 of either branch no longer counts")
    }
}
