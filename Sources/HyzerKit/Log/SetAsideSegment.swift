import Foundation
import GRDB

/// A segment ingest keeps aside, as a row of `pendingSegments` (above a gap in its author's
/// log) or `heldSegments` (stamped beyond what the clock accepts, until `releaseAt`): its key is
/// its author, its range and the digest of its bytes (docs/store.md).
struct SetAsideSegment {
    /// The tables a segment is set aside in.
    enum Table: String {
        case pending = "pendingSegments"
        case held = "heldSegments"
    }

    /// The key columns, then the segment's bytes, in the order `columns` selects them.
    enum Column: Int, CaseIterable {
        case author, firstSequence, lastSequence, digest, segment
    }

    let author: Data
    let firstSequence: Int64
    let lastSequence: Int64
    let digest: Data

    /// The key of the segment `row` holds, its columns selected as `Column` lists them (from
    /// `author`; a row may hold the segment's bytes or their length after them).
    init(row: Row) throws {
        author = try row.value(Column.author)
        firstSequence = try row.value(Column.firstSequence)
        lastSequence = try row.value(Column.lastSequence)
        digest = try row.value(Column.digest)
    }

    /// The segment the row holds, decoded; `nil` when it cannot be (it was refused as junk when set
    /// aside, so only a damaged store holds one).
    static func segment(_ row: Row) throws -> AuthorSegment? {
        try? AuthorSegment(decoding: row.bytes(Column.segment))
    }

    /// Removes the row from `table`.
    func delete(from table: Table, _ db: Database) throws {
        try db.cachedStatement(
            sql: "DELETE FROM \(table.rawValue) WHERE author = ? AND firstSequence = ? AND lastSequence = ? AND digest = ?"
        ).execute(arguments: [author, firstSequence, lastSequence, digest])
    }
}
