import Foundation
import GRDB
import GRDBSQLite
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// Ingest, verification and size: the figures that depend only on a bundle of score events.
struct IngestBenchmark {
    let opCount: Int
    let repetitions: Int
    let scratch: URL

    func run() throws -> [Figure] {
        let keys = SigningKeyPair(seed: Array(repeating: 7, count: 32))
        let ops = BenchData.ops(keys: keys, count: opCount)
        let segment = AuthorSegment(ops: ops)
        let group = GroupMembership(id: UUID(v5: "bench-group", namespace: SeededCourses.namespace), secret: Array(repeating: 9, count: 32))
        let sender = SigningKeyPair(seed: Array(repeating: 8, count: 32))
        let bundle = Bundle(
            groupID: group.id, sender: sender.author, senderVector: VersionVector([segment.author: UInt64(opCount)]),
            segments: [segment])
        let sealed = BundleFiles.seal(bundle.encoded(signedBy: sender.sign), group: group)

        var ingest = Samples()
        var raw = Samples()
        var rawC = Samples()
        var onDisk = 0
        for repetition in 0..<repetitions {
            let replica = try Replica.create(
                at: scratch.appendingPathComponent("ingest-\(repetition)"), name: "bench", kind: .laptop,
                keys: SigningKeyPair(seed: Array(repeating: UInt8(100 + repetition), count: 32)))
            try replica.join(group)
            let seconds = try Stopwatch.seconds {
                let report = try BundleFiles.import(sealed, into: replica)
                precondition(report.opsApplied == opCount, "the benchmark bundle must ingest whole")
            }
            ingest.add(Double(opCount) / seconds)
            if repetition == 0 { onDisk = try replica.storeBytes() }
            try replica.close()
            raw.add(Double(opCount) / (try rawInsert(ops, into: scratch.appendingPathComponent("raw-\(repetition).sqlite"))))
            rawC.add(
                Double(opCount)
                    / (try rawInsert(ops, into: scratch.appendingPathComponent("raw-c-\(repetition).sqlite"), bindingDirectly: true)))
        }

        var verify = Samples()
        var individual = Samples()
        for _ in 0..<repetitions {
            verify.add(try Stopwatch.seconds { _ = try segment.verifiedOps() })
            let signed = ops.map { $0.with(signature: keys.sign(SignedOp.signedMessage(hash: $0.hash))) }
            individual.add(
                Stopwatch.seconds {
                    for op in signed { precondition(op.hasValidSignature) }
                })
        }

        let events = Double(opCount)
        let json = try JSONSerialization.data(withJSONObject: ops.map(Self.plainJSON)).count
        return [
            Figure(
                name: "ingest", value: ingest.median, unit: "ops/s", baseline: raw.median,
                baselineName: "raw SQLite insert of the same rows (prepared statement, one transaction)",
                ratio: ingest.median / raw.median, target: "≥ 0.85× baseline", met: ingest.median / raw.median >= 0.85,
                spread: ingest.spread),
            Figure(
                name: "ingest beside SQLite's C interface", value: ingest.median, unit: "ops/s", baseline: rawC.median,
                baselineName: "the same rows bound straight into SQLite (sqlite3_bind_*, one statement a row, one transaction)",
                ratio: ingest.median / rawC.median, target: "≥ 0.75× baseline", met: ingest.median / rawC.median >= 0.75,
                spread: ingest.spread),
            Figure(
                name: "verification", value: verify.median * 1000, unit: "ms per \(opCount) ops", baseline: individual.median * 1000,
                baselineName: "\(opCount) individual Ed25519 verifications", ratio: individual.median / verify.median,
                target: "≥ 10× faster than baseline", met: individual.median / verify.median >= 10, spread: verify.spread),
            Figure(
                name: "bundle size", value: Double(sealed.count) / events, unit: "bytes/event", baseline: Double(json) / events,
                baselineName: "the same events as plain JSON", ratio: Double(json) / Double(sealed.count), target: "≤ 128 B",
                met: Double(sealed.count) / events <= 128, spread: 0),
            Figure(
                name: "store size", value: Double(onDisk) / events, unit: "bytes/event", baseline: Double(json) / events,
                baselineName: "the same events as plain JSON", ratio: Double(json) / Double(onDisk), target: "≤ 300 B",
                met: Double(onDisk) / events <= 300, spread: 0),
        ]
    }

    /// Seconds to insert the ops' rows into a table of the same shape, with a prepared
    /// statement in one transaction: the floor any store of these rows pays, through GRDB's
    /// arguments (the figure issue #13 set its goal against) or, `bindingDirectly`, through
    /// SQLite's C interface as ingest now binds them (no index beyond the key, so still a floor).
    private func rawInsert(_ ops: [SignedOp], into url: URL, bindingDirectly: Bool = false) throws -> Double {
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
            try db.execute(
                sql: """
                    CREATE TABLE ops (author INTEGER NOT NULL, sequence INTEGER NOT NULL, hash BLOB NOT NULL,
                    tail BLOB NOT NULL, signature BLOB, PRIMARY KEY (author, sequence)) WITHOUT ROWID
                    """)
        }
        if bindingDirectly { return try Stopwatch.seconds { try queue.write { db in try Self.bindDirectly(ops, db) } } }
        return try Stopwatch.seconds {
            try queue.write { db in
                let statement = try db.makeStatement(
                    sql: "INSERT INTO ops (author, sequence, hash, tail, signature) VALUES (?, ?, ?, ?, ?)")
                for op in ops {
                    try statement.execute(arguments: [1, Int64(op.sequence), Data(op.hash), Data(op.tail), op.signature.map { Data($0) }])
                }
            }
        }
    }

    /// Inserts the rows with `sqlite3_bind_*` and `sqlite3_step` on one prepared statement.
    private static func bindDirectly(_ ops: [SignedOp], _ db: Database) throws {
        let statement = try db.makeStatement(sql: "INSERT INTO ops (author, sequence, hash, tail, signature) VALUES (?, ?, ?, ?, ?)")
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        for op in ops {
            sqlite3_bind_int64(handle, 1, 1)
            sqlite3_bind_int64(handle, 2, Int64(op.sequence))
            op.hash.withUnsafeBytes { _ = sqlite3_bind_blob(handle, 3, $0.baseAddress, CInt($0.count), transient) }
            op.tail.withUnsafeBytes { _ = sqlite3_bind_blob(handle, 4, $0.baseAddress, CInt($0.count), transient) }
            if let signature = op.signature {
                signature.withUnsafeBytes { _ = sqlite3_bind_blob(handle, 5, $0.baseAddress, CInt($0.count), transient) }
            } else {
                sqlite3_bind_null(handle, 5)
            }
            guard sqlite3_step(handle) == SQLITE_DONE else {
                throw BenchError.unexpected("raw insert: \(String(cString: sqlite3_errmsg(db.sqliteConnection)))")
            }
            sqlite3_reset(handle)
        }
    }

    /// An event as a typical JSON sync format would carry it.
    private static func plainJSON(_ op: SignedOp) -> [String: Any] {
        guard case .success(let payload) = op.payload(), case .scoreRecorded(let score) = payload else {
            return ["id": op.entityID.uuidString, "kind": "roundStarted"]
        }
        return [
            "id": op.entityID.uuidString, "roundID": score.roundID.uuidString, "holeNumber": score.hole,
            "playerID": score.player.participantID.description, "strokeCount": score.strokes, "supersedes": [String](),
            "reportedByPlayerID": score.reportedBy?.participantID.description ?? "", "deviceID": op.author.hex,
            "createdAt": op.clock?.description ?? "",
        ]
    }
}
