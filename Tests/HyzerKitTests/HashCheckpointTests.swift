import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/store.md, "Hash checkpoints": an op that carries no signature keeps the first 16 bytes
/// of its hash, but for every 64th op of a log; every whole hash the store needs — a delta's
/// first previous hash, a duplicate's or a fork's comparison, a frozen author's digest — is
/// rebuilt along the chain from the checkpoint below, and `verify` still proves every op.
@Suite struct HashCheckpointTests {
    static let interval: UInt64 = 64

    /// `author`'s stored log.
    static func stored(_ replica: Replica, of author: AuthorID) throws -> [SignatureCompactionTests.StoredRow] {
        try SignatureCompactionTests.rows(replica, of: author)
    }

    /// The author's whole log, every op with its whole hash, from a delta that sends all of it.
    static func wholeLog(_ replica: Replica, of author: AuthorID) throws -> [SignedOp] {
        try replica.delta(above: VersionVector()).filter { $0.author == author }.flatMap { try $0.verifiedOps() }
    }

    /// Writes `count` commands, each its own signed op, as a device does.
    static func writeCommands(_ replica: Replica, count: Int, from first: Int = 0) throws {
        for n in first..<(first + count) { try replica.addPlayer(name: "Player \(n)") }
    }

    /// Stores every op's whole hash, as the store did before hash checkpoints (the triggers
    /// dropped first).
    static func storeWholeHashes(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT o.author, a.key, o.sequence, o.tail FROM ops o JOIN authors a ON a.id = o.author ORDER BY o.author, o.sequence"
        )
        var previous: (author: Int64, hash: [UInt8]) = (-1, [])
        for row in rows {
            let author: Int64 = row[0]
            if author != previous.author { previous = (author, SignedOp.noPreviousHash) }
            let op = SignedOp(
                author: AuthorID(bytes: Array(row[1] as Data))!, sequence: UInt64(row[2] as Int64), previousHash: previous.hash,
                tail: Array(row[3] as Data), signature: nil)
            try db.execute(
                sql: "UPDATE ops SET hash = ? WHERE author = ? AND sequence = ?", arguments: [Data(op.hash), author, row[2] as Int64])
            previous.hash = op.hash
        }
    }

    @Test func aStoreWithWholeHashesUpgradesSmallerAndStillVerifies() throws {
        let test = try TestReplica("hash-upgrade", keySeed: 131)
        let peer = try TestReplica("hash-upgrade-peer", keySeed: 132, start: baseTime + 500)
        try Self.writeCommands(test.replica, count: 599)
        try Self.writeCommands(peer.replica, count: 99, from: 5_000)
        try test.replica.pull(from: peer.replica)
        let digest = try test.replica.digest()
        let players = try test.replica.players()
        try test.replica.close()
        let path = SignatureCompactionTests.databasePath(test.replica)
        let raw = try DatabaseQueue(path: path)
        try raw.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(
                    sql: "DROP TRIGGER opsRefuseUpdate; DELETE FROM grdb_migrations WHERE identifier = 'v10-hash-checkpoints'")
                try Self.storeWholeHashes(db)
                // The trigger of v8-signature-compaction.
                try db.execute(
                    sql: """
                        CREATE TRIGGER opsRefuseUpdate BEFORE UPDATE ON ops
                            WHEN NEW.author IS NOT OLD.author OR NEW.sequence IS NOT OLD.sequence OR NEW.hash IS NOT OLD.hash
                                OR NEW.tail IS NOT OLD.tail OR NEW.signature IS NOT NULL
                            BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;
                        """)
                return .commit
            }
            try db.execute(sql: "VACUUM")
        }
        #expect(try raw.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ops WHERE length(hash) = 32") } == 700)
        try raw.close()
        let bytesBefore = try SignatureCompactionTests.fileBytes(path)

        let upgraded = try Replica.open(at: test.replica.directory, clock: test.clock)
        let report = try upgraded.verify()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.opsChecked == 700)
        #expect(try upgraded.digest() == digest)
        #expect(try upgraded.players() == players)
        for author in [test.author, peer.author] {
            for row in try Self.stored(upgraded, of: author) {
                #expect(row.hashBytes == (row.signed || row.sequence % Self.interval == 0 ? 32 : 16), "op \(row.sequence)")
            }
        }
        try upgraded.close()
        let bytesAfter = try SignatureCompactionTests.fileBytes(path)
        #expect(bytesAfter + 4_096 < bytesBefore, "\(bytesBefore) → \(bytesAfter) bytes")

        // It writes and syncs on.
        let reopened = try Replica.open(at: test.replica.directory, clock: test.clock)
        try Self.writeCommands(reopened, count: 100, from: 600)
        #expect(try reopened.verify().isIntact)
        try peer.replica.pull(from: reopened)
        #expect(try peer.replica.verify().isIntact)
        #expect(try peer.replica.digest() == reopened.digest())
        try reopened.close()
    }

    @Test func aDeviceLogKeepsWholeHashesOnlyAtSignedOpsAndCheckpoints() throws {
        let test = try TestReplica("checkpoints", keySeed: 121)
        try Self.writeCommands(test.replica, count: 200)
        let rows = try Self.stored(test.replica, of: test.author)
        #expect(rows.count == 201)
        for row in rows {
            let whole = row.signed || row.sequence % Self.interval == 0
            #expect(row.hashBytes == (whole ? 32 : 16), "op \(row.sequence)")
        }
        #expect(rows.filter { $0.hashBytes == 32 }.map(\.sequence) == [64, 128, 192, 201])
        let report = try test.replica.verify()
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.opsChecked == 201)
    }

    @Test func aDeltaAboveAnySequenceStartsOnItsWholeHash() throws {
        let writer = try TestReplica("delta-writer", keySeed: 122)
        try Self.writeCommands(writer.replica, count: 199)
        let log = try Self.wholeLog(writer.replica, of: writer.author)
        #expect(log.count == 200)
        for held in [0, 1, 2, 63, 64, 65, 100, 127, 128, 129, 191, 192, 193, 199] {
            let sent = try writer.replica.delta(above: VersionVector([writer.author: UInt64(held)])).filter {
                $0.author == writer.author
            }
            let first = try #require(sent.first)
            #expect(first.firstSequence == UInt64(held) + 1)
            #expect(first.previousHash == (held == 0 ? SignedOp.noPreviousHash : log[held - 1].hash), "above \(held)")
            #expect(try sent.flatMap { try $0.verifiedOps() }.map(\.hash) == log[held...].map(\.hash))
        }
        // A receiver that holds part of the log takes the rest.
        for held in [37, 64, 150, 199] {
            let receiver = try TestReplica("delta-receiver-\(held)", keySeed: 123, start: baseTime + 1_000)
            try receiver.replica.ingest(
                [AuthorSegment(ops: Array(log[..<held].dropLast()) + [Self.signed(log[held - 1], writer.keys)])])
            let report = try receiver.replica.ingest(writer.replica.delta(above: receiver.replica.versionVector()))
            #expect(report.rejected.isEmpty && report.opsApplied == 200 - held, "\(report)")
            #expect(try receiver.replica.verify().isIntact)
            #expect(try receiver.replica.versionVector().entry(writer.author) == writer.replica.versionVector().entry(writer.author))
        }
    }

    /// `op` with its author's signature, as the author's replica sent it when it was the head.
    static func signed(_ op: SignedOp, _ keys: SigningKeyPair) -> SignedOp {
        op.with(signature: keys.sign(SignedOp.signedMessage(hash: op.hash)))
    }

    @Test func aRelayedCopyBelowTheHeadIsKnownAsHeld() throws {
        let writer = try TestReplica("relay-writer", keySeed: 124)
        try Self.writeCommands(writer.replica, count: 149)
        let log = try Self.wholeLog(writer.replica, of: writer.author)
        let receiver = try TestReplica("relay-receiver", keySeed: 125, start: baseTime + 1_000)
        try receiver.replica.pull(from: writer.replica)
        let before = try Fingerprint(receiver.replica)
        // Copies of earlier live pushes, each relayed by another peer: ops whose stored hash is a prefix.
        for end in [1, 63, 64, 65, 70, 149] {
            let copy = AuthorSegment(ops: Array(log[..<end].dropLast()) + [Self.signed(log[end - 1], writer.keys)])
            let report = try receiver.replica.ingest([copy])
            #expect(report.rejected.isEmpty && report.opsApplied == 0 && report.opsAlreadyHeld == end, "\(report)")
        }
        #expect(try Fingerprint(receiver.replica) == before)
    }

    @Test(arguments: [65, 100, 128, 150])
    func aForkBelowTheHeadIsFoundAndKeepsTheWholeHeldHash(at point: Int) throws {
        let writer = try TestReplica("fork-writer", keySeed: 126)
        try Self.writeCommands(writer.replica, count: 199)
        let log = try Self.wholeLog(writer.replica, of: writer.author)
        let receiver = try TestReplica("fork-receiver", keySeed: 127, start: baseTime + 1_000)
        try receiver.replica.pull(from: writer.replica)
        // The writer's store, restored from a backup taken before op `point`, writes on.
        let other = rawOp(
            keys: writer.keys, sequence: UInt64(point), previousHash: log[point - 2].hash,
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 500_000), payload: .playerCreated(displayName: "Mallory"))
        let report = try receiver.replica.ingest([AuthorSegment(ops: [other])])
        #expect(report.rejected == [.fork(author: writer.author, sequence: UInt64(point))])
        let frozen = try #require(try receiver.replica.verify().forks.first)
        #expect(frozen.sequence == UInt64(point))
        #expect(frozen.reason == .fork(heldHash: log[point - 1].hash, otherHash: other.hash))

        // The digest counts the op below the fork point by its whole hash.
        var expected = ByteWriter()
        for (author, counted, hash, isFrozen) in [
            (writer.author, UInt64(point - 1), log[point - 2].hash, true),
            (receiver.author, 1, try Self.wholeLog(receiver.replica, of: receiver.author)[0].hash, false),
        ].sorted(by: { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }) {
            expected.write(raw: author.bytes)
            expected.write(counted)
            expected.write(raw: hash)
            expected.write(UInt8(isFrozen ? 1 : 0))
        }
        #expect(try receiver.replica.digest() == Hex.encode(Blake2b.hash256(expected.bytes)))

        // Another replica given the evidence by delta counts the same.
        let third = try TestReplica("fork-third", keySeed: 128, start: baseTime + 2_000)
        try third.replica.pull(from: receiver.replica)
        try receiver.replica.pull(from: third.replica)
        #expect(try third.replica.verify().forks.map(\.sequence) == [UInt64(point)])
        #expect(
            try Self.wholeLog(third.replica, of: writer.author).map(\.hash) == log.map(\.hash) + [other.hash],
            "the held log, then the proof")
        #expect(try third.replica.verify().isIntact)
    }

    @Test(arguments: [
        "UPDATE ops SET hash = substr(hash, 1, 16) WHERE sequence = 64",
        "UPDATE ops SET hash = substr(hash, 1, 8) WHERE sequence = 3",
        "UPDATE ops SET hash = zeroblob(16) WHERE sequence = 3",
        "UPDATE ops SET hash = zeroblob(32) WHERE sequence = 128",
    ])
    func theTriggersAllowNoOtherChangeOfAHash(sql: String) throws {
        let test = try TestReplica("hash-trigger", keySeed: 129)
        try Self.writeCommands(test.replica, count: 130)
        let before = try Fingerprint(test.replica)
        let raw = try DatabaseQueue(path: SignatureCompactionTests.databasePath(test.replica))
        let error = #expect(throws: DatabaseError.self) { try raw.write { try $0.execute(sql: sql) } }
        #expect(error?.message == "the op log is append-only")
        try raw.close()
        #expect(try Fingerprint(test.replica) == before)
        #expect(try test.replica.verify().isIntact)
    }

    @Test(arguments: [3, 64, 70])
    func verifyReportsAStoredHashThatDoesNotMatch(sequence: Int) throws {
        let test = try TestReplica("hash-damage", keySeed: 130)
        try Self.writeCommands(test.replica, count: 100)
        let raw = try DatabaseQueue(path: SignatureCompactionTests.databasePath(test.replica))
        try raw.write { db in
            try db.execute(sql: "DROP TRIGGER opsRefuseUpdate")
            // The stored bytes, whole hash or prefix, zeroed.
            try db.execute(
                sql: "UPDATE ops SET hash = zeroblob(length(hash)) WHERE sequence = ?", arguments: [sequence])
        }
        try raw.close()
        let problems = try test.replica.verify().problems
        #expect(problems.contains(.hashMismatch(author: test.author, sequence: UInt64(sequence))), "\(problems)")
    }
}
