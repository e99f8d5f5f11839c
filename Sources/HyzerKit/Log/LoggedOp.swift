import Foundation
import GRDB

/// One op of an author's log as the `ops` table keeps it: its place, its stored hash (whole, or
/// its prefix: `StoredHash`), its tail and its signature, if kept (docs/store.md).
struct LoggedOp {
    /// The columns a row holds, in the order `range` selects them.
    enum Column: Int, CaseIterable {
        case sequence, hash, tail, signature
    }

    let sequence: UInt64
    let storedHash: [UInt8]
    let tail: [UInt8]
    let signature: [UInt8]?

    /// The op `row` holds, its columns selected as `Column` lists them.
    init(row: Row) throws {
        sequence = try row.value(Column.sequence)
        storedHash = try row.bytes(Column.hash)
        tail = try row.bytes(Column.tail)
        signature = try row.optionalBytes(Column.signature)
    }

    /// The queries of `range`, made once: a delta reads a range of every author it carries.
    private static let upQuery =
        "SELECT \(Column.selection) FROM ops WHERE author = ? AND sequence >= ? AND sequence <= ? ORDER BY sequence ASC"
    private static let downQuery =
        "SELECT \(Column.selection) FROM ops WHERE author = ? AND sequence >= ? AND sequence <= ? ORDER BY sequence DESC"

    /// The ops of the author in `authors` row `author` from `first` through `last` held, in log
    /// order or from `last` down.
    static func range(
        author: Int64, from first: UInt64 = 1, through last: UInt64 = UInt64(Int64.max), descending: Bool = false, _ db: Database
    ) throws -> some Cursor<LoggedOp> {
        let statement = try db.cachedStatement(sql: descending ? downQuery : upQuery)
        return try Row.fetchCursor(statement, arguments: [author, Int64(clamping: first), Int64(clamping: last)]).map(LoggedOp.init(row:))
    }
}
