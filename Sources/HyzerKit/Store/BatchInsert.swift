import GRDB
import GRDBSQLite

/// A row that `BatchInsert` binds straight into SQLite, without GRDB's `DatabaseValue` and
/// `StatementArguments` (which cost about 15,000 instructions a row of ops, more than SQLite's
/// insert: docs/performance.md, "Ingest").
protocol BatchRow {
    /// The table's columns this row fills, in binding order.
    static var columns: [String] { get }
    /// The text of the insert of 2^k rows at index k, up to the most rows a statement takes:
    /// made once (`BatchInsert.statementTexts`), since a live score's one-row insert would
    /// otherwise spend more on building and hashing its SQL than SQLite spends on the row.
    static var statementTexts: [String] { get }
    /// The bytes of the row's blobs, which `bind` copies into the arena.
    var blobBytes: Int { get }
    /// Binds the row's values to parameters `index`, `index + 1`, … of `statement`, its blobs
    /// through `arena`; returns the first SQLite result code that is not `SQLITE_OK`, or `SQLITE_OK`.
    func bind(to statement: SQLiteStatement, at index: CInt, _ arena: BlobArena) -> CInt
}

/// Memory that holds the blobs bound to one statement while it runs, so SQLite binds them
/// without copying each (`SQLITE_STATIC`). `BatchInsert` clears the bindings before the arena
/// is reused or freed: no binding outlives the bytes it points to.
final class BlobArena {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0

    init(capacity: Int = 1 << 10) {
        self.capacity = max(capacity, 1)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Empties the arena and makes room for `bytes`; only while nothing is bound to it.
    func reset(reserving bytes: Int) {
        used = 0
        guard bytes > capacity else { return }
        base.deallocate()
        capacity = max(bytes, capacity * 2)
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// Copies `bytes` into the arena and binds them as a blob (an empty one for no bytes, never NULL).
    func bind(_ bytes: ArraySlice<UInt8>, to statement: SQLiteStatement, at index: CInt) -> CInt {
        precondition(used + bytes.count <= capacity, "the arena holds the statement's blobs")
        let start = base + used
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { start.copyMemory(from: source, byteCount: raw.count) }
        }
        used += bytes.count
        return sqlite3_bind_blob(statement, index, start, CInt(bytes.count), nil)  // nil: SQLITE_STATIC
    }

    func bind(_ bytes: [UInt8], to statement: SQLiteStatement, at index: CInt) -> CInt {
        bind(bytes[...], to: statement, at: index)
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

    mutating func add(_ row: Row, db: Database) throws {
        rows.append(row)
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
    }

    private func insert(_ batch: ArraySlice<Row>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: Row.statementTexts[batch.count.trailingZeroBitCount])
        // Resets the statement and clears its bindings; GRDB then executes it with the values
        // bound below (`execute()` without arguments resets it, which keeps bindings).
        statement.setUncheckedArguments(StatementArguments())
        let handle = statement.sqliteStatement
        arena.reset(reserving: batch.reduce(0) { $0 + $1.blobBytes })
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

/// One row of the log: an op of the author whose `authors` row is `author`.
struct OpRow: BatchRow {
    static let columns = ["author", "sequence", "hash", "tail", "signature"]
    static let statementTexts = BatchInsert<OpRow>.statementTexts("ops", rowsMax: 512)
    let author: Int64
    let op: SignedOp

    var blobBytes: Int { StoredHash.stored(op).count + op.tail.count + (op.signature?.count ?? 0) }

    func bind(to statement: SQLiteStatement, at index: CInt, _ arena: BlobArena) -> CInt {
        var code = sqlite3_bind_int64(statement, index, author)
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, index + 1, Int64(op.sequence)) }
        if code == SQLITE_OK { code = arena.bind(StoredHash.stored(op), to: statement, at: index + 2) }
        if code == SQLITE_OK { code = arena.bind(op.tail, to: statement, at: index + 3) }
        if code == SQLITE_OK {
            code = op.signature.map { arena.bind($0, to: statement, at: index + 4) } ?? sqlite3_bind_null(statement, index + 4)
        }
        return code
    }
}

/// The batched inserts of appending ops: their log rows.
struct OpSink {
    var ops = BatchInsert<OpRow>()

    mutating func flush(_ db: Database) throws {
        try ops.flush(db)
    }
}
