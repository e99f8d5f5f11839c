import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    /// Appends a new op of this replica to its log, signed, with the next sequence number and
    /// a fresh clock reading, and updates the views, all inside the caller's transaction.
    @discardableResult
    func append(_ payload: OpPayload, in db: Database) throws -> SignedOp {
        var row = try AuthorRow.findOrCreate(author, in: db)
        var hlc = try Self.loadClock(db)
        let clockReading = hlc.tick(nowMilliseconds: clock.nowMilliseconds())
        try Self.saveClock(hlc, db)
        let op = SignedOp(
            keys: keys, author: author, sequence: row.headSequence + 1, previousHash: row.headHash,
            clock: clockReading, payload: payload)
        var sink = OpSink()
        try row.append(op, to: &sink, db)
        try Materializer.apply(op, authorRow: row.id, db)
        try sink.flush(db)
        try row.saveHead(in: db)
        return op
    }

    static func loadClock(_ db: Database) throws -> HybridLogicalClock {
        guard let bytes = try Meta.get(.clock, in: db) else { return HybridLogicalClock() }
        var reader = ByteReader(bytes)
        return HybridLogicalClock(latest: (try? reader.readTimestamp()) ?? .zero)
    }

    static func saveClock(_ hlc: HybridLogicalClock, _ db: Database) throws {
        var writer = ByteWriter()
        writer.write(hlc.latest)
        try Meta.set(.clock, writer.bytes, in: db)
    }

    /// For each author, the highest sequence number held with no gap below it.
    public func versionVector() throws -> VersionVector {
        try read { db in try Self.versionVector(db) }
    }

    static func versionVector(_ db: Database) throws -> VersionVector {
        var vector = VersionVector()
        for row in try Row.fetchAll(db, sql: "SELECT key, headSequence FROM authors WHERE headSequence > 0") {
            vector[AuthorID(bytes: Array(row[0] as Data))!] = UInt64(row[1] as Int64)
        }
        return vector
    }

    /// Every op this replica holds above `vector`, one segment per author, in author order.
    public func delta(above vector: VersionVector) throws -> [AuthorSegment] {
        try read { db in
            var segments: [AuthorSegment] = []
            let authors = try Row.fetchAll(
                db, sql: "SELECT id, key, headSequence FROM authors WHERE headSequence > 0 ORDER BY key")
            for authorRow in authors {
                let key = AuthorID(bytes: Array(authorRow[1] as Data))!
                let head = UInt64(authorRow[2] as Int64)
                let known = vector[key]
                guard head > known else { continue }
                if PlantedBug.active.contains(.relayForgetsWatch), key != author,
                    try ViewReader(db: db).register(Data(key.bytes), "device.kind") == Data("watch".utf8)
                {
                    continue  // the planted bug: a relay forgets the watch's ops
                }
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT sequence, hash, tail, signature FROM ops WHERE author = ? AND sequence >= ? ORDER BY sequence",
                    arguments: [authorRow[0] as Int64, Int64(known)])
                var previousHash = SignedOp.noPreviousHash
                var tails: [[UInt8]] = []
                tails.reserveCapacity(rows.count)
                var lastSignature: [UInt8]?
                for row in rows {
                    if UInt64(row[0] as Int64) == known {
                        previousHash = Array(row[1] as Data)
                        continue
                    }
                    tails.append(Array(row[2] as Data))
                    lastSignature = (row[3] as Data?).map { Array($0) }
                }
                // The head op always carries its signature (docs/replication.md, invariants).
                guard let lastSignature else {
                    throw ReplicaError.corruptStore(path: directory.path, detail: "author \(key.short)'s head op has no signature")
                }
                segments.append(AuthorSegment(
                    author: key, firstSequence: known + 1, previousHash: previousHash, tails: tails,
                    lastSignature: lastSignature))
            }
            return segments
        }
    }

    /// A hash of the whole op set: equal on two replicas exactly when they hold the same ops.
    /// Each author's head hash commits to its entire log through the hash chain.
    public func digest() throws -> String {
        try read { db in try Self.digest(db) }
    }

    static func digest(_ db: Database) throws -> String {
        var writer = ByteWriter()
        for row in try Row.fetchAll(db, sql: "SELECT key, headSequence, headHash FROM authors WHERE headSequence > 0 ORDER BY key") {
            writer.write(raw: Array(row[0] as Data))
            writer.write(UInt64(row[1] as Int64))
            writer.write(raw: Array(row[2] as Data))
        }
        return Hex.encode(Blake2b.hash256(writer.bytes))
    }
}
