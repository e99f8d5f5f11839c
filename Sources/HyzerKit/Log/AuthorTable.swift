import Foundation
import GRDB
import HyzerDomain

/// One row of the `authors` table: an author's log head, whether it forked, and where it is
/// frozen (0 while live; no op at or above it counts in views).
struct AuthorRow {
    let id: Int64
    let key: AuthorID
    var headSequence: UInt64
    var headHash: [UInt8]
    var forked: Bool
    var frozenAt: UInt64
    /// Not a member of the group (`Membership`): its ops are kept but count nowhere.
    var stranger: Bool

    static func find(_ key: AuthorID, in db: Database) throws -> AuthorRow? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, headSequence, headHash, forked, frozenAt, stranger FROM authors WHERE key = ?"),
            arguments: [Data(key.bytes)]
        ).map { row in
            AuthorRow(
                id: row[0], key: key, headSequence: UInt64(row[1] as Int64), headHash: Array(row[2] as Data), forked: row[3],
                frozenAt: UInt64(row[4] as Int64), stranger: row[5])
        }
    }

    /// The author's row, created with an empty log when the author is new (a stranger when the
    /// group's organizer is known and has not admitted it).
    static func findOrCreate(_ key: AuthorID, in db: Database) throws -> AuthorRow {
        if let row = try find(key, in: db) { return row }
        let stranger = try Membership.startsAsStranger(key, db)
        try db.cachedStatement(sql: "INSERT INTO authors (key, headSequence, headHash, stranger) VALUES (?, 0, ?, ?)").execute(
            arguments: [Data(key.bytes), Data(SignedOp.noPreviousHash), stranger])
        return AuthorRow(
            id: db.lastInsertedRowID, key: key, headSequence: 0, headHash: SignedOp.noPreviousHash, forked: false, frozenAt: 0,
            stranger: stranger)
    }

    /// Appends `op`, which must be this author's next op, and moves the head in memory;
    /// `saveHead` writes it once after a run of appends, and the sink's flush writes the rows.
    mutating func append(_ op: SignedOp, to sink: inout OpSink, _ db: Database) throws {
        precondition(
            op.author == key && op.sequence == headSequence + 1 && op.previousHash == headHash,
            "ops are appended in sequence, each on its predecessor")
        try sink.ops.add(OpRow(author: id, op: op), db: db)
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
            db.cachedStatement(sql: "SELECT hash FROM ops WHERE author = ? AND sequence = ?"), arguments: [id, Int64(sequence)]
        ).map { Array($0) }
    }

    /// The stored tail of op `sequence`.
    func tail(of sequence: UInt64, in db: Database) throws -> [UInt8]? {
        try Data.fetchOne(
            db.cachedStatement(sql: "SELECT tail FROM ops WHERE author = ? AND sequence = ?"), arguments: [id, Int64(sequence)]
        ).map { Array($0) }
    }

    /// Freezes the author at `sequence` (lowering an earlier fork point); `forked` says the
    /// evidence is a fork proof rather than a stamp that does not increase.
    mutating func freeze(at sequence: UInt64, forked: Bool, in db: Database) throws {
        precondition(sequence >= 1 && (frozenAt == 0 || sequence < frozenAt), "a fork point only moves down")
        frozenAt = sequence
        self.forked = self.forked || forked
        try db.cachedStatement(sql: "UPDATE authors SET frozenAt = ?, forked = ? WHERE id = ?").execute(
            arguments: [Int64(sequence), self.forked, id])
        // Nothing waiting above the head can lower the fork point any more.
        for table in ["pendingSegments", "heldSegments"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE author = ?").execute(arguments: [Data(key.bytes)])
        }
    }
}
