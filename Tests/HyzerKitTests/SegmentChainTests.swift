import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerTestSupport
import Testing

@testable import HyzerKit

/// docs/store.md, "Ingest": a batch of at least `SegmentChain.opsHashedElsewhereMin` ops is
/// hashed on another core while the writer stores the ops already hashed, and the segment's
/// signature is checked before its savepoint is released. Whatever is wrong anywhere in such a
/// segment, nothing of it counts and the store is as it was.
@Suite struct SegmentChainTests {
    typealias Batch = IngestBatchTests

    /// A chain hashed elsewhere holds the very hashes `chainedOps()` computes here.
    @Test(arguments: [1, 511, 512, 2000])
    func aChainHashedElsewhereIsTheChainHashedHere(count: Int) throws {
        let segment = AuthorSegment(ops: Batch.ops(count))
        let chain = try #require(SegmentChain.hashing([segment]).first)
        let expected = try segment.chainedOps()
        #expect((0..<count).map { chain.op(at: $0) } == expected)
        try chain.verifySignature()
    }

    /// The writer reads each hash twice (an op's, then the next op's previous hash), and the chain
    /// keeps the one read last: reads in any order still give each op's own hash.
    @Test func hashesReadInAnyOrderAreEachOpsOwn() throws {
        let ops = Batch.ops(600)
        let chain = try #require(SegmentChain.hashing([AuthorSegment(ops: ops)]).first)
        for offset in [5, 5, 3, 599, 0, 5, 598, 599] {
            #expect(chain.hash(at: offset) == ops[offset].hash)
        }
        #expect(chain.hash(ofSequence: 0) == SignedOp.noPreviousHash)
        #expect(chain.op(at: 4).previousHash == ops[3].hash)
    }

    /// Ingest reads each op's clock from its tail in place: the clock the tail was made with, and
    /// none from a tail shorter than a clock.
    @Test func theClockOfATailIsTheClockItWasMadeWith() {
        for clock in [HLCTimestamp.zero, HLCTimestamp(physicalMilliseconds: 0x0102_0304_0506_0708, counter: 0x090a_0b0c)] {
            let tail = SignedOp.tail(clock: clock, payloadBytes: [1, 2, 3])
            #expect(OpTail(tail).clock == clock)
            #expect(OpTail(Array(tail.prefix(12))).clock == clock)
        }
        #expect(OpTail(Array(repeating: 0xff, count: 11)).clock == nil)
        #expect(OpTail([UInt8]()).clock == nil)
    }

    enum Tampering: String, CaseIterable {
        case firstTail, middleTail, lastTail, signature
    }

    /// A large segment from nothing, tampered with anywhere: refused, and nothing stored.
    @Test(arguments: Tampering.allCases)
    func aLargeTamperedSegmentIsRefusedWhole(_ tampering: Tampering) throws {
        let receiver = try TestReplica("chain-tampered-\(tampering.rawValue)", keySeed: 71)
        let before = try Fingerprint(receiver.replica)
        let segment = Self.tampered(AuthorSegment(ops: Batch.ops(1500)), tampering)
        let report = try receiver.replica.ingest([segment])
        #expect(report.rejected == [.signatureMismatch(author: Batch.author, sequence: 1500)])
        #expect(report.opsApplied == 0)
        #expect(try Fingerprint(receiver.replica) == before)
        #expect(try Batch.storedRows(receiver.replica).isEmpty)
    }

    /// A large tampered segment on a held log: the held log stays as it was, with its head.
    @Test(arguments: Tampering.allCases)
    func aLargeTamperedExtensionLeavesTheHeldLog(_ tampering: Tampering) throws {
        let receiver = try TestReplica("chain-extension-\(tampering.rawValue)", keySeed: 72)
        let held = Batch.ops(10)
        #expect(try receiver.replica.ingest([AuthorSegment(ops: held)]).opsApplied == 10)
        let before = try Fingerprint(receiver.replica)
        let extending = Self.tampered(AuthorSegment(ops: Batch.ops(1200, from: 11, previousHash: held[9].hash)), tampering)
        let report = try receiver.replica.ingest([extending])
        #expect(report.rejected == [.signatureMismatch(author: Batch.author, sequence: 1210)])
        #expect(try Fingerprint(receiver.replica) == before)
        try Batch.expectStored(held, in: receiver.replica)
    }

    /// An extension of the held head on another previous op: a fork only when its author signed
    /// it; a forged one is no proof and changes nothing.
    @Test(arguments: [true, false])
    func aLargeExtensionOnAnotherPreviousOpIsAForkOnlyWhenSigned(signed: Bool) throws {
        let receiver = try TestReplica("chain-fork-\(signed)", keySeed: 73)
        let held = Batch.ops(10)
        try receiver.replica.ingest([AuthorSegment(ops: held)])
        let before = try Fingerprint(receiver.replica)
        let other = AuthorSegment(ops: Batch.ops(800, from: 11, previousHash: Array(repeating: 0xAB, count: 32)))
        let report = try receiver.replica.ingest([signed ? other : Self.tampered(other, .signature)])
        if signed {
            #expect(report.rejected == [.fork(author: Batch.author, sequence: 10)])
            #expect(try receiver.replica.status().forks.map(\.sequence) == [10])
        } else {
            #expect(report.rejected == [.signatureMismatch(author: Batch.author, sequence: 810)])
            #expect(try receiver.replica.status().forks.isEmpty)
            #expect(try Fingerprint(receiver.replica) == before)
        }
    }

    /// Many small segments that make a large batch together are hashed elsewhere in order, and
    /// one bad segment among them spoils only itself and what waits on it.
    @Test func aLargeBatchOfSmallSegmentsWithOneBad() throws {
        let receiver = try TestReplica("chain-batch", keySeed: 74)
        var segments: [AuthorSegment] = []
        var previous = SignedOp.noPreviousHash
        var all: [SignedOp] = []
        for index in 0..<8 {
            let ops = Batch.ops(100, from: UInt64(index * 100 + 1), previousHash: previous)
            segments.append(AuthorSegment(ops: ops))
            previous = ops[99].hash
            all += ops
        }
        segments[5] = Self.tampered(segments[5], .middleTail)
        let report = try receiver.replica.ingest(segments)
        #expect(report.opsApplied == 500)
        #expect(report.rejected == [.signatureMismatch(author: Batch.author, sequence: 600)])
        #expect(report.segmentsPending == 2, "the two segments above the refused one wait on its gap")
        #expect(try Batch.storedRows(receiver.replica).map(\.sequence) == (1...500).map(Int64.init))
        // The good segment's own copy fills the gap, and the waiting two follow.
        let filled = try receiver.replica.ingest([AuthorSegment(ops: Array(all[500..<600]))])
        #expect(filled.opsApplied == 300)
        #expect(try Batch.storedRows(receiver.replica).count == 800)
    }

    static func tampered(_ segment: AuthorSegment, _ tampering: Tampering) -> AuthorSegment {
        var tails = segment.tails
        var signature = segment.lastSignature
        func flip(_ index: Int) { tails[index][tails[index].count - 1] ^= 0x01 }
        switch tampering {
        case .firstTail: flip(0)
        case .middleTail: flip(tails.count / 2)
        case .lastTail: flip(tails.count - 1)
        case .signature: signature[7] ^= 0x40
        }
        return AuthorSegment(
            author: segment.author, firstSequence: segment.firstSequence, previousHash: segment.previousHash, tails: tails,
            lastSignature: signature)
    }
}
