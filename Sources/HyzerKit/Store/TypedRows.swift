import Foundation
import GRDB
import HyzerDomain

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
    /// The enum's cases as a select list: each case is named as its column.
    static var selection: String { allCases.map { "\($0)" }.joined(separator: ", ") }
}

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
