import Foundation
import GRDB
import GRDBSQLite
import HyzerDomain
import Synchronization

// How the store reads its rows (docs/store.md, "Reading rows"): each record type names its
// columns in a `Column` enum, in the order its query selects them, and reads each value through
// `Row.value(_:)`, converted to its type, by place (GRDB's lookup by name lowercases the name
// for each value read). A stored value of the wrong type or length is an error thrown, never a
// trap.

extension Row {
    /// The value in `column`, the place its record's `Column` enum gives it, converted to `Value`;
    /// throws when the stored value is not one.
    func value<Value: DatabaseValueConvertible>(_ column: some RawRepresentable<Int>) throws -> Value {
        try decode(atIndex: column.rawValue)
    }

    /// The value in `column`, read straight from the statement when the row is a cursor's (no
    /// `DatabaseValue` made on the way); throws when the stored value is not one.
    func value<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some RawRepresentable<Int>) throws -> Value {
        try decode(Value.self, atIndex: column.rawValue)
    }

    /// The bytes of the blob in `column` (empty for an empty blob).
    func bytes(_ column: some RawRepresentable<Int>) throws -> [UInt8] {
        Array(try decode(Data.self, atIndex: column.rawValue))
    }

    /// The bytes of the blob in `column`, or `nil` for NULL.
    func optionalBytes(_ column: some RawRepresentable<Int>) throws -> [UInt8]? {
        try decode(Data?.self, atIndex: column.rawValue).map { Array($0) }
    }
}

extension CaseIterable where Self: RawRepresentable<Int> {
    /// The enum's cases as a select list: each case is named as its column. Made once per enum:
    /// naming a case reflects on its type, which cost more than a query of one row.
    static var selection: String {
        selectionLists.withLock { lists in
            if let list = lists[ObjectIdentifier(Self.self)] { return list }
            let list = allCases.map { "\($0)" }.joined(separator: ", ")
            lists[ObjectIdentifier(Self.self)] = list
            return list
        }
    }
}

/// The select lists made so far, by column enum.
private let selectionLists = Mutex<[ObjectIdentifier: String]>([:])

/// An author id as the store keeps it: its 32 key bytes as a blob. A blob of another length is
/// no author id, so a read of one fails (`Row.value(_:)`) instead of trapping.
extension AuthorID: DatabaseValueConvertible {
    /// The 32 key bytes, as a blob.
    public var databaseValue: DatabaseValue { Data(bytes).databaseValue }

    /// The author id a 32-byte blob holds; `nil` for any other value.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> AuthorID? {
        guard case .blob(let data) = dbValue.storage else { return nil }
        return AuthorID(bytes: Array(data))
    }
}

/// An author id read straight from a statement's blob: the store reads one for every author of a
/// delta and a digest.
extension AuthorID: StatementColumnConvertible {
    /// The author id the blob in column `index` holds; `nil` for any other value.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_BLOB, let blob = sqlite3_column_blob(sqliteStatement, index)
        else { return nil }
        self.init(bytes: Array(UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(sqliteStatement, index)))))
    }
}
