import GRDB
import GRDBSQLite

/// A row that `BatchInsert` binds straight into SQLite, without GRDB's `DatabaseValue` and
/// `StatementArguments` (which cost about 12,000 instructions a row of ops: docs/performance.md,
/// "Ingest").
protocol BatchRow {
    /// The table's columns this row fills, in binding order.
    static var columns: [String] { get }
    /// Binds the row's values to parameters `index`, `index + 1`, … of `statement`; returns the
    /// first SQLite result code that is not `SQLITE_OK`, or `SQLITE_OK`.
    func bind(to statement: SQLiteStatement, at index: CInt) -> CInt
}

/// Rows for one table, inserted many per statement: the same rows as one statement each, with
/// a fraction of the statement overhead. Callers `flush` before anything reads the table.
struct BatchInsert<Row: BatchRow> {
    let table: String
    let rowsPerStatement: Int
    private var rows: [Row] = []
    /// The statement's text for a full batch, made once.
    private let fullSQL: String

    init(into table: String, rowsPerStatement: Int = 64) {
        self.table = table
        self.rowsPerStatement = rowsPerStatement
        fullSQL = Self.sql(table, rows: rowsPerStatement)
        rows.reserveCapacity(rowsPerStatement)
    }

    mutating func add(_ row: Row, db: Database) throws {
        rows.append(row)
        if rows.count == rowsPerStatement { try flush(db) }
    }

    mutating func flush(_ db: Database) throws {
        guard !rows.isEmpty else { return }
        let statement = try db.cachedStatement(sql: rows.count == rowsPerStatement ? fullSQL : Self.sql(table, rows: rows.count))
        // Resets the statement and clears its bindings; GRDB then executes it with the values
        // bound below (`execute()` without arguments resets it, which keeps bindings).
        statement.setUncheckedArguments(StatementArguments())
        let handle = statement.sqliteStatement
        defer { sqlite3_clear_bindings(handle) }
        var index: CInt = 1
        for row in rows {
            let code = row.bind(to: handle, at: index)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot bind a row of \(table)", sql: statement.sql)
            }
            index += CInt(Row.columns.count)
        }
        try statement.execute()
        rows.removeAll(keepingCapacity: true)
    }

    private static func sql(_ table: String, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: Row.columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) (\(Row.columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
}

/// SQLite copies the bytes before the binding call returns.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// Binds `bytes` as a blob (an empty one for no bytes, never NULL).
func bindBlob(_ bytes: [UInt8], to statement: SQLiteStatement, at index: CInt) -> CInt {
    bytes.withUnsafeBytes { raw in
        // A zero-length blob needs a non-null pointer to stay a blob rather than NULL.
        sqlite3_bind_blob(statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), CInt(raw.count), transient)
    }
}

/// One row of the log: an op of the author whose `authors` row is `author`.
struct OpRow: BatchRow {
    static let columns = ["author", "sequence", "hash", "tail", "signature"]
    let author: Int64
    let op: SignedOp

    func bind(to statement: SQLiteStatement, at index: CInt) -> CInt {
        var code = sqlite3_bind_int64(statement, index, author)
        if code == SQLITE_OK { code = sqlite3_bind_int64(statement, index + 1, Int64(op.sequence)) }
        if code == SQLITE_OK { code = bindBlob(op.hash, to: statement, at: index + 2) }
        if code == SQLITE_OK { code = bindBlob(op.tail, to: statement, at: index + 3) }
        if code == SQLITE_OK {
            code = op.signature.map { bindBlob($0, to: statement, at: index + 4) } ?? sqlite3_bind_null(statement, index + 4)
        }
        return code
    }
}

/// The batched inserts of appending ops: their log rows.
struct OpSink {
    var ops = BatchInsert<OpRow>(into: "ops")

    mutating func flush(_ db: Database) throws {
        try ops.flush(db)
    }
}
