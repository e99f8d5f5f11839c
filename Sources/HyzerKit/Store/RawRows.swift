import GRDB
import GRDBSQLite

/// One row of a statement stepped through SQLite's C interface (`Statement.forEachRawRow`):
/// its values read in place, without GRDB's row copy and without a `Data` for each blob.
struct RawRow {
    let handle: SQLiteStatement

    /// The integer in `column` (0 for NULL).
    func int64(_ column: CInt) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The bytes of the blob in `column`; nil for NULL, empty for an empty blob.
    func bytes(_ column: CInt) -> [UInt8]? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        guard let start = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }
}

extension Statement {
    /// Runs `body` on each row of this statement, which takes no arguments: the reads every live
    /// connection makes at every change of the store (the version vector, the holdings), for
    /// which GRDB's per-row copies and `Data` values cost more than SQLite's own work
    /// (docs/performance.md, "A tournament"). The statement is reset before and after, so GRDB
    /// finds it as it left it.
    func forEachRawRow(_ db: Database, _ body: (RawRow) throws -> Void) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try body(RawRow(handle: handle))
            case SQLITE_DONE: return
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
        }
    }
}
