import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/store.md, "Signature compaction": a later signed op of an author proves every earlier
/// one through the hash chain, so the store drops covered signatures as ops are stored, keeping
/// the head's, an anchor at least every 64 KiB of the author's tails, and rekey ops'. Every op
/// is still proven, deltas still end each segment at a signed op, and forks keep their evidence.
@Suite struct SignatureCompactionTests {
    /// The kept-signature spacing the store promises (`AuthorRow.anchorBytesMax`).
    static let anchorBytesMax = 64 * 1024

    /// One row of an author's log as stored.
    struct StoredRow {
        let sequence: UInt64
        let tailBytes: Int
        let signed: Bool
        /// The bytes of the stored hash: 32, or 16 where hash checkpoints keep a prefix.
        let hashBytes: Int
    }

    static func databasePath(_ replica: Replica) -> String {
        replica.directory.appendingPathComponent(Replica.databaseFileName).path
    }

    static func rows(_ replica: Replica, of author: AuthorID) throws -> [StoredRow] {
        let queue = try DatabaseQueue(path: databasePath(replica))
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT o.sequence, length(o.tail), o.signature IS NOT NULL, length(o.hash) FROM ops o JOIN authors a ON a.id = o.author
                    WHERE a.key = ? ORDER BY o.sequence
                    """, arguments: [Data(author.bytes)]
            ).map { StoredRow(sequence: UInt64($0[0] as Int64), tailBytes: $0[1], signed: $0[2], hashBytes: $0[3]) }
        }
    }

    /// The invariants of a compacted log: the head is signed, and no more than
    /// `anchorBytesMax` bytes of tails lie between two signed ops, or the tails of the largest
    /// segment received (`widestArrival`), whose ops arrived with one signature.
    static func expectCompacted(_ rows: [StoredRow], widestArrival: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rows.last?.signed == true, "the head keeps its signature", sourceLocation: sourceLocation)
        var bytes = 0
        var widest = 0
        for row in rows {
            bytes += row.tailBytes
            if row.signed {
                widest = max(widest, bytes)
                bytes = 0
            }
        }
        #expect(
            widest <= max(anchorBytesMax, widestArrival), "at most 64 KiB between kept signatures, or one segment received",
            sourceLocation: sourceLocation)
    }

    /// A name of 200 bytes (the most a name holds), different for each `n`.
    static func longName(_ n: Int) -> String {
        let prefix = "Player \(n) "
        return prefix + String(repeating: "x", count: 200 - prefix.utf8.count)
    }

    /// `count` commands of about 215 bytes of tail each.
    static func writeLongLog(_ replica: Replica, count: Int, from first: Int = 0) throws {
        for n in first..<(first + count) { try replica.addPlayer(name: longName(n)) }
    }

    // MARK: Compaction as ops are stored

    @Test func aLongLogKeepsItsHeadAndAnAnchorEvery64KiB() throws {
        let test = try TestReplica("long", keySeed: 91)
        try Self.writeLongLog(test.replica, count: 700)  // about 150 KiB
        let rows = try Self.rows(test.replica, of: test.author)
        #expect(rows.count == 701)
        Self.expectCompacted(rows)
        let signed = rows.filter(\.signed).count
        #expect(signed >= 3 && signed <= 4, "two anchors and the head, not \(signed) signatures")

        let report = try test.replica.verify()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.opsChecked == 701)
        #expect(report.signaturesChecked == signed)
    }

    @Test func receivedSegmentsAreCompactedToo() throws {
        let writer = try TestReplica("writer", keySeed: 92)
        let receiver = try TestReplica("receiver", keySeed: 93, start: baseTime + 1_000)
        // One op at a time, as a live connection relays them: one signed segment each.
        for n in 0..<400 {
            try writer.replica.addPlayer(name: Self.longName(n))
            let report = try receiver.replica.pull(from: writer.replica)
            try #require(report.rejected.isEmpty && report.opsApplied == (n == 0 ? 2 : 1))
        }
        let rows = try Self.rows(receiver.replica, of: writer.author)
        #expect(rows.count == 401)
        Self.expectCompacted(rows)
        #expect(rows.filter(\.signed).count <= 3)
        #expect(try receiver.replica.verify().isIntact)
        #expect(try receiver.replica.versionVector().entry(writer.author) == writer.replica.versionVector().entry(writer.author))
    }

    @Test func aRekeyOpKeepsItsSignature() throws {
        let receiver = try TestReplica("rekey-receiver", keySeed: 94)
        let organizer = seededKeys(95)
        let member = AuthorID(bytes: seededKeys(96).publicKey)!
        let rekey = rawOp(
            keys: organizer, sequence: 1, previousHash: SignedOp.noPreviousHash,
            clock: HLCTimestamp(physicalMilliseconds: baseTime - 2_000),
            payload: .groupRekeyed(epoch: 1, sealed: [member: [UInt8](repeating: 7, count: 80)]))
        let next = rawOp(
            keys: organizer, sequence: 2, previousHash: rekey.hash, clock: HLCTimestamp(physicalMilliseconds: baseTime - 1_000),
            payload: .playerCreated(displayName: "Ora"))
        let third = rawOp(
            keys: organizer, sequence: 3, previousHash: next.hash, clock: HLCTimestamp(physicalMilliseconds: baseTime - 500),
            payload: .playerCreated(displayName: "Oli"))
        for op in [rekey, next, third] {
            #expect(try receiver.replica.ingest([AuthorSegment(ops: [op])]).rejected.isEmpty)
        }
        let author = AuthorID(bytes: organizer.publicKey)!
        #expect(try Self.rows(receiver.replica, of: author).map(\.signed) == [true, false, true])
        // The folder's rekey bundle is the organizer's log through the rekey op, signed there.
        let log = try receiver.replica.log(of: author, through: 1)
        #expect(log.count == 1)
        #expect(try log.flatMap { try $0.verifiedOps() }.map(\.hash) == [rekey.hash])
        #expect(try receiver.replica.log(of: author, through: 2).isEmpty, "op 2's signature was dropped")
        // A delta ends a segment at the rekey op.
        let sent = try receiver.replica.delta(above: VersionVector()).filter { $0.author == author }
        #expect(sent.map(\.lastSequence) == [1, 3])
    }

    // MARK: What the triggers allow

    @Test(arguments: [
        "UPDATE ops SET signature = NULL",
        "UPDATE ops SET signature = NULL WHERE sequence = (SELECT max(sequence) FROM ops)",
    ])
    func theHeadSignatureCannotBeDropped(sql: String) throws {
        let test = try TestReplica("head", owner: "Ava", keySeed: 97)
        try test.replica.addPlayer(name: "Ben")
        let before = try Fingerprint(test.replica)
        let raw = try DatabaseQueue(path: Self.databasePath(test.replica))
        let error = #expect(throws: DatabaseError.self) { try raw.write { try $0.execute(sql: sql) } }
        #expect(error?.message == "a signature is dropped only when a later signed op of its author covers it")
        try raw.close()
        #expect(try Fingerprint(test.replica) == before)
        #expect(try test.replica.verify().isIntact)
    }

    @Test func aCoveredSignatureMayBeDroppedAndTheLogStillVerifies() throws {
        let test = try TestReplica("anchor", keySeed: 98)
        try Self.writeLongLog(test.replica, count: 400)
        let anchor = try #require(try Self.rows(test.replica, of: test.author).dropLast().last(where: \.signed))
        let raw = try DatabaseQueue(path: Self.databasePath(test.replica))
        try raw.write { try $0.execute(sql: "UPDATE ops SET signature = NULL WHERE sequence = ?", arguments: [Int64(anchor.sequence)]) }
        try raw.close()
        let report = try test.replica.verify()
        #expect(report.isIntact)
        #expect(report.signaturesChecked == 1)
        // Without the anchor a delta still ends at a signed op: the head, past the budget.
        let sent = try test.replica.delta(above: VersionVector(), segmentBytesMax: 16 * 1024)
        #expect(sent.map(\.lastSequence) == [401])
    }

    // MARK: Deltas of a compacted log

    @Test func aDeltaOfACompactedLogEndsEachSegmentAtASignedOp() throws {
        let writer = try TestReplica("delta-writer", keySeed: 99)
        try Self.writeLongLog(writer.replica, count: 1_000)  // about 210 KiB
        let rows = try Self.rows(writer.replica, of: writer.author)
        let signed = Set(rows.filter(\.signed).map(\.sequence))
        for budget in [0, 1, 1024, 16 * 1024, 64 * 1024, 100 * 1024, 1 << 20] {
            try expectCutsWithin(budget, writer, rows, signed)
        }
    }

    private func expectCutsWithin(_ budget: Int, _ writer: TestReplica, _ rows: [StoredRow], _ signed: Set<UInt64>) throws {
        for above: UInt64 in [0, 1, 150, 500, 999] {
            let sent = try writer.replica.delta(above: VersionVector(above == 0 ? [:] : [writer.author: above]), segmentBytesMax: budget)
            var next = above + 1
            for segment in sent {
                #expect(segment.firstSequence == next)
                #expect(signed.contains(segment.lastSequence), "segment \(segment.firstSequence)…\(segment.lastSequence)")
                _ = try segment.verifiedOps()
                let bytes = segment.tails.reduce(0) { $0 + $1.count }
                // Over the budget only when no signed op lies within it.
                let within = rows.filter { $0.sequence >= segment.firstSequence && $0.sequence < segment.lastSequence }
                    .reduce(into: (bytes: 0, signed: false)) { state, row in
                        state.bytes += row.tailBytes
                        if row.signed && state.bytes <= budget { state.signed = true }
                    }
                #expect(bytes <= budget || !within.signed, "\(bytes) bytes above a budget of \(budget)")
                next = segment.lastSequence + 1
            }
            #expect(next == 1_002)
        }
        let receiver = try TestReplica("delta-receiver", keySeed: 100, start: baseTime + 1_000)
        let sent = try writer.replica.delta(above: VersionVector(), segmentBytesMax: budget)
        let report = try receiver.replica.ingest(sent)
        #expect(report.rejected.isEmpty && report.opsApplied == 1_001)
        #expect(try receiver.replica.verify().isIntact)
        #expect(try receiver.replica.versionVector().entry(writer.author) == writer.replica.versionVector().entry(writer.author))
        let widest = sent.map { $0.tails.reduce(0) { $0 + $1.count } }.max() ?? 0
        Self.expectCompacted(try Self.rows(receiver.replica, of: writer.author), widestArrival: widest)
    }

    // MARK: Attacks

    @Test func aSegmentWhoseHeadIsNotValidlySignedDropsNothing() throws {
        let writer = try TestReplica("honest", keySeed: 101)
        let receiver = try TestReplica("target", keySeed: 102, start: baseTime + 1_000)
        try Self.writeLongLog(writer.replica, count: 5)
        try receiver.replica.pull(from: writer.replica)
        let before = try Self.rows(receiver.replica, of: writer.author)
        #expect(before.last?.signed == true)

        // Ops 7 and 8 continuing the log, their last "signature" forged or another key's.
        let head = try #require(try writer.replica.delta(above: VersionVector()).last { $0.author == writer.author })
        let previous = try head.verifiedOps().last!.hash
        let forged = [
            [UInt8](repeating: 0, count: 64),
            seededKeys(103).sign(SignedOp.signedMessage(hash: previous)),
        ]
        for signature in forged {
            let tails = [
                SignedOp.tail(
                    clock: HLCTimestamp(physicalMilliseconds: baseTime + 100),
                    payloadBytes: OpPayload.playerCreated(displayName: "Mal").encoded()),
                SignedOp.tail(
                    clock: HLCTimestamp(physicalMilliseconds: baseTime + 200),
                    payloadBytes: OpPayload.playerCreated(displayName: "Mo").encoded()),
            ]
            let segment = AuthorSegment(
                author: writer.author, firstSequence: 7, previousHash: previous, tails: tails, lastSignature: signature)
            let report = try receiver.replica.ingest([segment])
            #expect(report.rejected == [.signatureMismatch(author: writer.author, sequence: 8)])
        }
        let after = try Self.rows(receiver.replica, of: writer.author)
        #expect(after.map(\.signed) == before.map(\.signed), "the head's signature is kept")
        #expect(try receiver.replica.verify().isIntact)
    }

    @Test func aForkAfterCompactionKeepsTwoSignedBranches() throws {
        // One store writes a long log, then a copy of it (restored from a backup) writes on too.
        let template = try TestReplica("forked", keySeed: 104)
        try Self.writeLongLog(template.replica, count: 400)
        let copy = try StoreTemplate(closing: template, start: baseTime + 60_000)
        let original = try copy.copy()
        let restored = try copy.copy()
        try Self.writeLongLog(original.replica, count: 300, from: 400)
        try Self.writeLongLog(restored.replica, count: 3, from: 9_000)
        let author = original.author
        Self.expectCompacted(try Self.rows(original.replica, of: author))

        let observer = try TestReplica("observer", keySeed: 105, start: baseTime + 120_000)
        #expect(try observer.replica.pull(from: original.replica).opsApplied == 701)
        let report = try observer.replica.ingest(restored.replica.delta(above: VersionVector()))
        #expect(report.rejected == [.fork(author: author, sequence: 402)])
        let verify = try observer.replica.verify()
        #expect(verify.isIntact, "\(verify.problems)")
        #expect(verify.forks.map(\.sequence) == [402])

        // The evidence travels: both branches, each segment ending at a signed op.
        let sent = try observer.replica.delta(above: VersionVector()).filter { $0.author == author }
        let branches = try sent.map { try $0.verifiedOps() }
        let held = try #require(branches.dropLast().joined().first { $0.sequence == 402 })
        let other = try #require(branches.last?.first { $0.sequence == 402 })
        #expect(held.hash != other.hash)
        let third = try TestReplica("third", keySeed: 106, start: baseTime + 120_000)
        let received = try third.replica.ingest(sent)
        #expect(received.rejected == [.fork(author: author, sequence: 402)])
        #expect(try third.replica.verify().forks.map(\.sequence) == [402])
        #expect(try third.replica.versionVector().entry(author) == observer.replica.versionVector().entry(author))
        #expect(try third.replica.verify().isIntact)

        // A frozen author's log is evidence: what arrives after keeps its signatures.
        for n in 700..<703 {
            try original.replica.addPlayer(name: Self.longName(n))
            let head = try original.replica.versionVector()[author]
            let more = try observer.replica.ingest(original.replica.delta(above: VersionVector([author: head - 1])))
            #expect(more.rejected.isEmpty && more.opsApplied == 0)
        }
        #expect(try Self.rows(observer.replica, of: author).suffix(4).map(\.signed) == [true, true, true, true])
        #expect(try observer.replica.verify().isIntact)
    }

    // MARK: Upgrading a store written before compaction

    @Test func aStoreWithEverySignatureUpgradesSmallerAndStillVerifies() throws {
        let test = try TestReplica("upgrade", owner: "Ava", keySeed: 107)
        let peer = try TestReplica("upgrade-peer", keySeed: 108, start: baseTime + 500)
        let round = try test.replica.startRound(course: "Morley Field", players: ["Ava"])
        try test.replica.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        try Self.writeLongLog(test.replica, count: 598)
        try Self.writeLongLog(peer.replica, count: 30, from: 5_000)
        try test.replica.pull(from: peer.replica)
        let digest = try test.replica.digest()
        try test.replica.close()

        // The store as the previous schema (v7-membership) wrote it: every local op signed,
        // a received segment signed at its end, every whole hash stored, no anchor columns, the
        // old triggers, the score index on whole round ids, no op columns.
        let path = Self.databasePath(test.replica)
        let raw = try DatabaseQueue(path: path)
        try raw.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(
                    sql: """
                        DROP TRIGGER opsRefuseUpdate; DROP TRIGGER opsKeepCoveringSignature;
                        ALTER TABLE authors DROP COLUMN anchorSequence; ALTER TABLE authors DROP COLUMN anchorBytes;
                        DELETE FROM grdb_migrations
                            WHERE identifier IN ('v8-signature-compaction', 'v9-score-index-prefix', 'v10-hash-checkpoints', 'v11-score-index-two-bytes',
                                'v12-op-columns');
                        DROP INDEX opsByScoredRound;
                        ALTER TABLE ops DROP COLUMN scoredRoundPrefix; ALTER TABLE ops DROP COLUMN scoredRound; ALTER TABLE ops DROP COLUMN kind;
                        CREATE INDEX opsByScoredRound ON ops(substr(tail, 14, 16)) WHERE substr(tail, 13, 1) = x'0a';
                        """)
                try HashCheckpointTests.storeWholeHashes(db)
                let own = try Row.fetchAll(
                    db, sql: "SELECT o.author, o.sequence, o.hash FROM ops o JOIN authors a ON a.id = o.author WHERE a.key = ?",
                    arguments: [Data(test.author.bytes)])
                for row in own {
                    let signature = test.keys.sign(SignedOp.signedMessage(hash: Array(row[2] as Data)))
                    try db.execute(
                        sql: "UPDATE ops SET signature = ? WHERE author = ? AND sequence = ?",
                        arguments: [Data(signature), row[0] as Int64, row[1] as Int64])
                }
                try db.execute(
                    sql: """
                        CREATE TRIGGER opsRefuseUpdate BEFORE UPDATE ON ops
                            BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;
                        """)
                return .commit
            }
            try db.execute(sql: "VACUUM")
        }
        let signaturesBefore = try raw.read { try Int.fetchOne($0, sql: "SELECT count(signature) FROM ops") }
        #expect(signaturesBefore == 603, "602 local ops and the end of the received segment")
        try raw.close()
        let bytesBefore = try Self.fileBytes(path)

        let upgraded = try Replica.open(at: test.replica.directory, clock: test.clock)
        let report = try upgraded.verify()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.opsChecked == 633)
        #expect(report.signaturesChecked < 10, "\(report.signaturesChecked) signatures kept")
        #expect(try upgraded.digest() == digest)
        let ava = try #require(try upgraded.players().first { $0.displayName == "Ava" }).id
        #expect(
            try upgraded.roundView(round.id)?.evaluation.score(player: ParticipantID(player: ava), hole: 1).strokes == 3,
            "the round reads its scores through the new index")
        Self.expectCompacted(try Self.rows(upgraded, of: test.author))
        try upgraded.close()
        let bytesAfter = try Self.fileBytes(path)
        #expect(bytesAfter + 20_000 < bytesBefore, "\(bytesBefore) → \(bytesAfter) bytes")

        // It writes and syncs on, compacting as it goes.
        let reopened = try Replica.open(at: test.replica.directory, clock: test.clock)
        try Self.writeLongLog(reopened, count: 300, from: 600)
        Self.expectCompacted(try Self.rows(reopened, of: test.author))
        #expect(try reopened.verify().isIntact)
        try peer.replica.pull(from: reopened)
        #expect(try peer.replica.verify().isIntact)
        #expect(try peer.replica.digest() == reopened.digest())
        try reopened.close()
    }

    /// The database file's size with its WAL checkpointed into it (every connection closed).
    static func fileBytes(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        return try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }
}
