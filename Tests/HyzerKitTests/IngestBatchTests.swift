import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/performance.md, "Ingest": ingest writes the log's rows many to a statement, binding
/// them straight into SQLite from memory it owns. Whatever the count of ops, each row holds
/// exactly the op's bytes, and the log's index agrees with its rows.
@Suite struct IngestBatchTests {
    static let keys = seededKeys(61)
    static let author = AuthorID(bytes: keys.publicKey)!

    /// `count` ops of `Self.author` from `first` on, chained on `previousHash`, the last one
    /// signed. Payloads are arbitrary bytes of lengths 0 to 299 (some of score kind, some that
    /// decode as nothing): the log keeps them all.
    static func ops(_ count: Int, from first: UInt64 = 1, previousHash: [UInt8] = SignedOp.noPreviousHash) -> [SignedOp] {
        var previous = previousHash
        var ops: [SignedOp] = []
        for index in 0..<count {
            let sequence = first + UInt64(index)
            let length = Int(sequence * 7919 % 300)
            var payload = (0..<length).map { UInt8(truncatingIfNeeded: Int(sequence) &* 31 &+ $0 &* 17) }
            if sequence % 3 == 0, !payload.isEmpty { payload[0] = OpPayload.Kind.scoreRecorded.rawValue }
            let clock = HLCTimestamp(physicalMilliseconds: baseTime - 10_000_000 + sequence)
            let op = SignedOp(
                author: author, sequence: sequence, previousHash: previous,
                tail: SignedOp.tail(clock: clock, payloadBytes: payload), signature: nil)
            ops.append(op)
            previous = op.hash
        }
        let last = ops[count - 1]
        ops[count - 1] = last.with(signature: keys.sign(SignedOp.signedMessage(hash: last.hash)))
        return ops
    }

    /// The author's rows as the store holds them, in sequence order.
    static func storedRows(_ replica: Replica) throws -> [(sequence: Int64, hash: Data, tail: Data, signature: Data?)] {
        let queue = try DatabaseQueue(path: replica.directory.appendingPathComponent(Replica.databaseFileName).path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT o.sequence, o.hash, o.tail, o.signature FROM ops o JOIN authors a ON a.id = o.author
                    WHERE a.key = ? ORDER BY o.sequence
                    """, arguments: [Data(author.bytes)]
            ).map { ($0[0], $0[1], $0[2], $0[3]) }
        }
    }

    /// Every byte of every row, the NULL signatures of the ops a segment's signature covers,
    /// and the index (`PRAGMA integrity_check` compares it with the rows).
    static func expectStored(_ ops: [SignedOp], in replica: Replica) throws {
        let rows = try storedRows(replica)
        try #require(rows.count == ops.count)
        for (row, op) in zip(rows, ops) {
            #expect(row.sequence == Int64(op.sequence))
            // The whole hash on a signed op and a checkpoint, else its first 16 bytes (docs/store.md).
            let whole = op.signature != nil || op.sequence % 64 == 0
            #expect(Array(row.hash) == (whole ? op.hash : Array(op.hash.prefix(16))))
            #expect(Array(row.tail) == op.tail)
            #expect(row.signature.map { Array($0) } == op.signature)
        }
        let queue = try DatabaseQueue(path: replica.directory.appendingPathComponent(Replica.databaseFileName).path)
        defer { try? queue.close() }
        try queue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            let scores = try Int.fetchOne(db, sql: "SELECT count(*) FROM ops o WHERE o.kind = x'0a'")
            #expect(scores == ops.filter { $0.tail.count > 12 && $0.tail[12] == OpPayload.Kind.scoreRecorded.rawValue }.count)
        }
    }

    /// Counts around the statement's 512 rows, and ones a flush splits into several statements.
    @Test(arguments: [1, 2, 3, 7, 511, 512, 513, 1000, 1537])
    func everyRowHoldsItsOp(count: Int) throws {
        let receiver = try TestReplica("batch", keySeed: 62)
        let ops = Self.ops(count)
        let report = try receiver.replica.ingest([AuthorSegment(ops: ops)])
        #expect(report.opsApplied == count)
        #expect(report.rejected.isEmpty)
        try Self.expectStored(ops, in: receiver.replica)
    }

    /// Segments one after another, in one ingest and in the next: the store's cached statements
    /// are reused with fresh bindings, and nothing bound for one segment reaches the next.
    @Test func segmentsInSequenceReuseTheStatements() throws {
        let receiver = try TestReplica("batch-sequence", keySeed: 63)
        let first = Self.ops(700)
        let second = Self.ops(300, from: 701, previousHash: first[699].hash)
        let third = Self.ops(45, from: 1001, previousHash: second[299].hash)
        #expect(try receiver.replica.ingest([AuthorSegment(ops: first), AuthorSegment(ops: second)]).opsApplied == 1000)
        #expect(try receiver.replica.ingest([AuthorSegment(ops: third)]).opsApplied == 45)
        // Signature compaction: op 700 keeps its signature as an anchor (the second segment's
        // 300 ops and the first's 700 hold more than 64 KiB of tails); op 1000's is covered by
        // op 1045's, with fewer than 64 KiB above op 700.
        let compacted = second[..<299] + [second[299].with(signature: nil)]
        try Self.expectStored(first + compacted + third, in: receiver.replica)
        // What the store sends on is the same log, and it verifies.
        let sent = try receiver.replica.delta(above: VersionVector()).filter { $0.author == Self.author }
        #expect(try sent.flatMap { try $0.verifiedOps() }.map(\.hash) == (first + second + third).map(\.hash))
    }

    /// A payload of no bytes leaves a tail of just the clock: stored as those 12 bytes.
    @Test func aClockOnlyTailIsStoredAsItIs() throws {
        let receiver = try TestReplica("batch-clock-only", keySeed: 64)
        let clock = HLCTimestamp(physicalMilliseconds: baseTime - 5_000)
        let unsigned = SignedOp(
            author: Self.author, sequence: 1, previousHash: SignedOp.noPreviousHash,
            tail: SignedOp.tail(clock: clock, payloadBytes: []), signature: nil)
        let op = unsigned.with(signature: Self.keys.sign(SignedOp.signedMessage(hash: unsigned.hash)))
        #expect(try receiver.replica.ingest([AuthorSegment(ops: [op])]).opsApplied == 1)
        try Self.expectStored([op], in: receiver.replica)
        #expect(try Self.storedRows(receiver.replica)[0].tail.count == 12)
    }

    /// The hash ingest computes for each op is BLAKE2b-256 of the op's canonical body, for tails
    /// of any length (a long one is laid out on the heap rather than the stack).
    @Test(arguments: [0, 1, 12, 100, 1024, 5000, 16 * 1024, 100_000])
    func anOpsHashIsTheHashOfItsBody(tailBytes: Int) {
        let tail = (0..<tailBytes).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let previous = (0..<32).map { UInt8($0 * 3) }
        let op = SignedOp(author: Self.author, sequence: 0x0102_0304_0506_0708, previousHash: previous, tail: tail, signature: nil)
        let body = SignedOp.body(author: Self.author, sequence: 0x0102_0304_0506_0708, previousHash: previous, tail: tail)
        #expect(op.hash == Blake2b.hash256(body))
    }
}
