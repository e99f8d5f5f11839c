import Foundation
import GRDB
import HyzerDomain

/// An author frozen by evidence this replica holds: no op of it at or above `sequence` counts
/// in views (docs/store.md, "Forks").
public struct FrozenAuthor: Hashable, Sendable {
    /// The evidence that froze the author.
    public enum Reason: Hashable, Sendable {
        /// Two validly signed ops with this sequence: `heldHash` in this replica's log,
        /// `otherHash` in the other branch kept as proof.
        case fork(heldHash: [UInt8], otherHash: [UInt8])
        /// Op `sequence` is not stamped after the op before it.
        case stampNotIncreasing
    }

    /// The frozen author.
    public let author: AuthorID
    /// The fork point.
    public let sequence: UInt64
    /// What this replica holds as evidence.
    public let reason: Reason

    /// The columns `all` reads: the author's, then its fork's (NULL where no fork proof is kept).
    private enum Column: Int, CaseIterable { case key, frozenAt, heldHash, otherHash }

    static func all(_ db: Database) throws -> [FrozenAuthor] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT a.key, a.frozenAt, f.heldHash, f.otherHash FROM authors a
                    LEFT JOIN forks f ON f.author = a.key AND f.sequence = a.frozenAt
                    WHERE a.frozenAt > 0 ORDER BY a.key
                    """)
        ).map { row in
            let held = try row.optionalBytes(Column.heldHash)
            let other = try row.optionalBytes(Column.otherHash)
            return FrozenAuthor(
                author: try row.value(Column.key), sequence: try row.value(Column.frozenAt),
                reason: held.flatMap { held in other.map { .fork(heldHash: held, otherHash: $0) } } ?? .stampNotIncreasing)
        }
    }
}
