import Foundation
import GRDB
import HyzerDomain

/// One row of the `authors` table: an author's log head, and whether it forked.
struct AuthorRow {
    let id: Int64
    let key: AuthorID
    var headSequence: UInt64
    var headHash: [UInt8]
    var forked: Bool

    static func find(_ key: AuthorID, in db: Database) throws -> AuthorRow? {
        try Row.fetchOne(
            db, sql: "SELECT id, headSequence, headHash, forked FROM authors WHERE key = ?",
            arguments: [Data(key.bytes)]
        ).map { row in
            AuthorRow(id: row[0], key: key, headSequence: UInt64(row[1] as Int64), headHash: Array(row[2] as Data), forked: row[3])
        }
    }

    /// The author's row, created with an empty log when the author is new.
    static func findOrCreate(_ key: AuthorID, in db: Database) throws -> AuthorRow {
        if let row = try find(key, in: db) { return row }
        try db.cachedStatement(sql: "INSERT INTO authors (key, headSequence, headHash) VALUES (?, 0, ?)").execute(
            arguments: [Data(key.bytes), Data(SignedOp.noPreviousHash)])
        return AuthorRow(id: db.lastInsertedRowID, key: key, headSequence: 0, headHash: SignedOp.noPreviousHash, forked: false)
    }

    /// Appends `op`, which must be this author's next op, and moves the head in memory;
    /// `saveHead` writes it once after a run of appends, and the sink's flush writes the rows.
    mutating func append(_ op: SignedOp, to sink: inout OpSink, _ db: Database) throws {
        precondition(op.author == key && op.sequence == headSequence + 1 && op.previousHash == headHash,
            "ops are appended in sequence, each on its predecessor")
        try sink.ops.add(
            id.databaseValue, Int64(op.sequence).databaseValue, Data(op.hash).databaseValue, Data(op.tail).databaseValue,
            op.signature.map { Data($0).databaseValue } ?? .null, db: db)
        headSequence = op.sequence
        headHash = op.hash
    }

    /// Writes the head that `append` moved.
    func saveHead(in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE authors SET headSequence = ?, headHash = ? WHERE id = ?").execute(
            arguments: [Int64(headSequence), Data(headHash), id])
    }

    /// The stored hash of op `sequence`; zeros for 0.
    func hash(of sequence: UInt64, in db: Database) throws -> [UInt8]? {
        if sequence == 0 { return SignedOp.noPreviousHash }
        return try Data.fetchOne(
            db, sql: "SELECT hash FROM ops WHERE author = ? AND sequence = ?", arguments: [id, Int64(sequence)]
        ).map { Array($0) }
    }

    func markForked(in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE authors SET forked = 1 WHERE id = ?").execute( arguments: [id])
    }
}
