import Foundation
import GRDB
import HyzerDomain

/// One row of the `authors` table: an author's log head, whether it forked, where it is
/// frozen (0 while live; no op at or above it counts in views), and where its last kept
/// signature below the head lies (signature compaction, docs/store.md).
struct AuthorRow {
    let id: Int64
    let key: AuthorID
    var headSequence: UInt64
    var headHash: [UInt8]
    var forked: Bool
    var frozenAt: UInt64
    /// Not a member of the group (`Membership`): its ops are kept but count nowhere.
    var stranger: Bool
    /// The highest op below the head whose signature compaction keeps (an anchor), 0 for none.
    var anchorSequence: UInt64
    /// The bytes of the tails of the ops above `anchorSequence` through the head.
    var anchorBytes: Int

    /// The columns of `authors` a row holds, in the order `find` selects them.
    enum Column: Int, CaseIterable {
        case id, key, headSequence, headHash, forked, frozenAt, stranger, anchorSequence, anchorBytes
    }

    /// The row of `key`, if the store knows the author.
    static func find(_ key: AuthorID, in db: Database) throws -> AuthorRow? {
        // Decoded while the statement holds the row (a cursor's row reads the statement).
        try Row.fetchCursor(db.cachedStatement(sql: findQuery), arguments: [key]).map(AuthorRow.init(row:)).next()
    }

    /// The query of `find`, made once: ingest finds the author of every segment it reads.
    private static let findQuery = "SELECT \(Column.selection) FROM authors WHERE key = ?"

    /// Every author with a log, by key: the query of a delta and a digest.
    static let withLogQuery = "SELECT \(Column.selection) FROM authors WHERE headSequence > 0 ORDER BY key"

    /// The row `row` holds, its columns selected as `Column` lists them.
    init(row: Row) throws {
        id = try row.value(Column.id)
        key = try row.value(Column.key)
        headSequence = try row.value(Column.headSequence)
        headHash = try row.bytes(Column.headHash)
        forked = try row.value(Column.forked)
        frozenAt = try row.value(Column.frozenAt)
        stranger = try row.value(Column.stranger)
        anchorSequence = try row.value(Column.anchorSequence)
        anchorBytes = try row.value(Column.anchorBytes)
    }

    /// An author's row as `findOrCreate` makes it.
    private init(id: Int64, key: AuthorID, stranger: Bool) {
        self.id = id
        self.key = key
        headSequence = 0
        headHash = SignedOp.noPreviousHash
        forked = false
        frozenAt = 0
        self.stranger = stranger
        anchorSequence = 0
        anchorBytes = 0
    }

    /// The author's row, created with an empty log when the author is new (a stranger when the
    /// group's organizer is known and has not admitted it).
    static func findOrCreate(_ key: AuthorID, in db: Database) throws -> AuthorRow {
        if let row = try find(key, in: db) { return row }
        let stranger = try Membership.startsAsStranger(key, db)
        try db.cachedStatement(sql: "INSERT INTO authors (key, headSequence, headHash, stranger) VALUES (?, 0, ?, ?)").execute(
            arguments: [Data(key.bytes), Data(SignedOp.noPreviousHash), stranger])
        return AuthorRow(id: db.lastInsertedRowID, key: key, stranger: stranger)
    }

    /// Appends `op`, which must be this author's next op, and moves the head in memory;
    /// `saveHead` writes it once after a run of appends, and the sink's flush writes the rows.
    mutating func append(_ op: SignedOp, to sink: inout OpSink, _ db: Database) throws {
        precondition(
            op.author == key && op.sequence == headSequence + 1 && op.previousHash == headHash,
            "ops are appended in sequence, each on its predecessor")
        try sink.add(author: id, op, db)
        headSequence = op.sequence
        headHash = op.hash
    }

    /// Writes the head that `append` moved, and the anchor that `coverSignatures` moved.
    func saveHead(in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE authors SET headSequence = ?, headHash = ?, anchorSequence = ?, anchorBytes = ? WHERE id = ?")
            .execute(arguments: [Int64(headSequence), Data(headHash), Int64(anchorSequence), Int64(anchorBytes), id])
    }

    /// The most bytes of tails between two kept signatures of an author's log (but for a
    /// single segment received larger): an op's signature is kept when dropping it would
    /// leave more than this above the previous kept one, so `Replica.delta(above:)` can cut a
    /// long log into segments of about this size, each ending at a signed op.
    static let anchorBytesMax = 64 * 1024

    /// Signature compaction (docs/store.md): after a run of appends that ends in a signed op
    /// (flushed to the log), the new head's signature covers `previousHead`'s through the hash
    /// chain, so that signature is dropped, and the op's stored hash cut to its prefix unless it
    /// is a checkpoint (`StoredHash`) — unless it is an anchor (dropping it would leave
    /// more than `anchorBytesMax` bytes between kept signatures), a rekey op (whose signature
    /// the folder's rekey bundle ends with), a removal op (which a member shows the removed
    /// device, `RemovalProof`), or the author is frozen (its log is evidence, kept
    /// as it arrived). `appendedBytes` are the bytes of the appended tails.
    mutating func coverSignatures(previousHead: UInt64, appendedBytes: Int, _ db: Database) throws {
        guard previousHead > anchorSequence else {
            anchorBytes += appendedBytes
            return
        }
        if frozenAt == 0, anchorBytes + appendedBytes <= Self.anchorBytesMax {
            try db.cachedStatement(
                sql: """
                    UPDATE ops SET signature = NULL, hash = substr(hash, 1, ?)
                    WHERE author = ? AND sequence = ? AND signature IS NOT NULL
                        AND kind IS NOT \(OpPayload.Kind.groupRekeyed.sqlLiteral) AND kind IS NOT \(OpPayload.Kind.memberRemoved.sqlLiteral)
                    """
            ).execute(arguments: [StoredHash.isCheckpoint(previousHead) ? 32 : StoredHash.prefixBytes, id, Int64(previousHead)])
            if db.changesCount > 0 {
                anchorBytes += appendedBytes
                return
            }
        }
        anchorSequence = previousHead
        anchorBytes = appendedBytes
    }

    /// The whole hash of op `sequence` (`StoredHash.whole`); zeros for 0.
    func hash(of sequence: UInt64, in db: Database) throws -> [UInt8]? {
        if sequence == headSequence { return headHash }
        return try StoredHash.whole(of: sequence, author: key, row: id, db)
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
