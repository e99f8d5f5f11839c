import GRDB
import GRDBSQLite

/// A row that `BatchInsert` binds straight into SQLite, without GRDB's `DatabaseValue` and
/// `StatementArguments` (which cost about 15,000 instructions a row of ops, more than SQLite's
/// insert). A row holds plain values and the places of its blobs in the batch's arena, copied
/// there as the row is added: the rows waiting for a statement hold no reference the batch must
/// retain and release (docs/performance.md, "Ingest").
protocol BatchRow {
    /// The table's columns this row fills, in binding order.
    static var columns: [String] { get }
    /// The text of the insert of 2^k rows at index k, up to the most rows a statement takes:
    /// made once (`BatchInsert.statementTexts`), since a live score's one-row insert would
    /// otherwise spend more on building and hashing its SQL than SQLite spends on the row.
    static var statementTexts: [String] { get }
    /// Binds the row's values to parameters `index`, `index + 1`, … of `statement`, its blobs
    /// where `arena` holds them; returns the first SQLite result code that is not `SQLITE_OK`,
    /// or `SQLITE_OK`.
    func bind(to statement: SQLiteStatement, at index: CInt, _ arena: BlobArena) -> CInt
}

/// Memory that holds the blobs of a batch's rows until they are inserted, so SQLite binds them
/// without copying each (`SQLITE_STATIC`). A blob is named by its place (`BlobArena.Place`),
/// not by an address: the arena may move while rows are added, never while they are bound.
/// `BatchInsert` clears the bindings before the arena is emptied or freed: no binding outlives
/// the bytes it points to.
final class BlobArena {
    /// Where a blob lies in the arena.
    struct Place {
        let offset: Int
        let count: Int
    }

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0

    init(capacity: Int = 1 << 10) {
        self.capacity = max(capacity, 1)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Copies `bytes` into the arena, growing it (and moving what it holds) if they do not fit.
    func store(_ bytes: ArraySlice<UInt8>) -> Place {
        if used + bytes.count > capacity {
            let grown = max(used + bytes.count, capacity * 2)
            let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            moved.copyMemory(from: base, byteCount: used)
            base.deallocate()
            base = moved
            capacity = grown
        }
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { (base + used).copyMemory(from: source, byteCount: raw.count) }
        }
        defer { used += bytes.count }
        return Place(offset: used, count: bytes.count)
    }

    func store(_ bytes: [UInt8]) -> Place { store(bytes[...]) }

    /// Empties the arena, keeping its memory; only while nothing is bound to it.
    func empty() { used = 0 }

    /// Binds the blob at `place` (an empty one for no bytes, never NULL); valid until the arena
    /// is emptied or a blob stored.
    func bind(_ place: Place, to statement: SQLiteStatement, at index: CInt) -> CInt {
        precondition(place.offset + place.count <= used, "a blob the arena holds")
        return sqlite3_bind_blob(statement, index, base + place.offset, CInt(place.count), nil)  // nil: SQLITE_STATIC
    }
}

/// Rows for one table, inserted many per statement: the same rows as one statement each, with
/// a fraction of the statement overhead. Callers `flush` before anything reads the table.
///
/// Each statement of many rows keeps a statement journal (it must be undone whole if a row
/// fails): a copy of each page it changes that earlier statements of the transaction had
/// changed, such as the log's last leaf and the index leaves it touches. Fewer, larger
/// statements write fewer of them (13,114 pages for 100,000 ops at 64 rows a statement, 4,063 at
/// 512). A flush of fewer rows than a full statement inserts them in statements of powers of
/// two, so a connection caches at most a handful of these statements.
struct BatchInsert<Row: BatchRow> {
    let rowsPerStatement: Int
    private var rows: [Row] = []
    /// Grown as statements need: a sink of one row (a live score) makes no room for 512 rows'
    /// blobs, nor the text of their statement.
    private let arena = BlobArena()

    /// `rowsPerStatement` must be a power of two with a statement text (`BatchRow.statementTexts`).
    init(rowsPerStatement: Int = 512) {
        precondition(rowsPerStatement > 0 && rowsPerStatement & (rowsPerStatement - 1) == 0, "a power of two")
        precondition(rowsPerStatement.trailingZeroBitCount < Row.statementTexts.count, "a statement text for each size")
        self.rowsPerStatement = rowsPerStatement
    }

    /// Adds the row `make` builds, its blobs stored in the batch's arena.
    mutating func add(_ db: Database, _ make: (BlobArena) -> Row) throws {
        rows.append(make(arena))
        if rows.count == rowsPerStatement { try flush(db) }
    }

    mutating func flush(_ db: Database) throws {
        // A statement holds at most SQLite's limit of parameters (32,766 since SQLite 3.32).
        let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) / Row.columns.count
        var start = 0
        while start < rows.count {
            // The largest power of two that fits what is left and the limit.
            let fits = min(rows.count - start, max(limit, 1))
            let count = 1 << (Int.bitWidth - 1 - fits.leadingZeroBitCount)
            try insert(rows[start..<start + count], db)
            start += count
        }
        rows.removeAll(keepingCapacity: true)
        arena.empty()
    }

    private func insert(_ batch: ArraySlice<Row>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: Row.statementTexts[batch.count.trailingZeroBitCount])
        // Resets the statement and clears its bindings; GRDB then executes it with the values
        // bound below (`execute()` without arguments resets it, which keeps bindings).
        statement.setUncheckedArguments(StatementArguments())
        let handle = statement.sqliteStatement
        // The bindings point into the arena: none survives this call.
        defer { sqlite3_clear_bindings(handle) }
        var index: CInt = 1
        for row in batch {
            let code = row.bind(to: handle, at: index, arena)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind a row", sql: statement.sql)
            }
            index += CInt(Row.columns.count)
        }
        try statement.execute()
    }

    /// The texts of inserts into `table` of 1, 2, 4, … `rowsMax` rows, for `BatchRow.statementTexts`.
    static func statementTexts(_ table: String, rowsMax: Int) -> [String] {
        let row = "(" + Array(repeating: "?", count: Row.columns.count).joined(separator: ", ") + ")"
        return (0...rowsMax.trailingZeroBitCount).map { power in
            "INSERT INTO \(table) (\(Row.columns.joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: 1 << power).joined(separator: ", ")
        }
    }
}

/// One row of the log: an op of the author whose `authors` row is `author`, its blobs in the
/// batch's arena.
struct OpRow: BatchRow {
    static let columns = ["author", "sequence", "hash", "tail", "signature"]
    static let statementTexts = BatchInsert<OpRow>.statementTexts("ops", rowsMax: 512)
    let author: Int64
    let sequence: Int64
    let hash: BlobArena.Place
    let tail: BlobArena.Place
    let signature: BlobArena.Place?

    /// The op is borrowed: a row made for each of 100,000 ops neither retains nor releases it.
    init(author: Int64, op: borrowing SignedOp, storingBlobsIn arena: BlobArena) {
        self.author = author
        sequence = Int64(op.sequence)
        hash = arena.store(StoredHash.stored(op))
        tail = arena.store(op.tail)
        signature = op.signature.map(arena.store)
    }

    func bind(to statement: SQLiteStatement, at index: CInt, _ arena: BlobArena) -> CInt {
        var code = sqlite3_bind_int64(statement, index, author)
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, index + 1, sequence) }
        if code == SQLITE_OK { code = arena.bind(hash, to: statement, at: index + 2) }
        if code == SQLITE_OK { code = arena.bind(tail, to: statement, at: index + 3) }
        if code == SQLITE_OK {
            code = signature.map { arena.bind($0, to: statement, at: index + 4) } ?? sqlite3_bind_null(statement, index + 4)
        }
        return code
    }
}

/// The batched inserts of appending ops: their log rows.
struct OpSink {
    var ops = BatchInsert<OpRow>()

    mutating func add(author: Int64, _ op: SignedOp, _ db: Database) throws {
        try ops.add(db) { OpRow(author: author, op: op, storingBlobsIn: $0) }
    }

    mutating func flush(_ db: Database) throws {
        try ops.flush(db)
    }
}
