import Foundation
import GRDB
import HyzerDomain

/// An op read back from the log together with its decoded payload, for building views: the
/// store's one reader of ops joined with their authors (`ops o JOIN authors a`).
struct StoredOp {
    let author: AuthorID
    let sequence: UInt64
    let hash: [UInt8]
    let clock: HLCTimestamp
    let payload: OpPayload

    /// The columns `init(row:)` reads, in the order of `Column`.
    static let columns = "a.key AS author, o.sequence, o.hash, o.tail"

    /// Where `columns` puts each value.
    private enum Column: Int {
        case author, sequence, hash, tail
    }

    /// `nil` when the op's payload cannot be decoded (such ops change no view); throws when the
    /// stored author or sequence is not what the store writes.
    init?(row: Row) throws {
        // The stored hash is used as it is: `verify` checks it, views only need the tail.
        let tail = OpTail(try row.value(Column.tail) as Data)
        guard let clock = tail.clock, let payload = tail.decodedPayload else { return nil }
        author = try row.value(Column.author)
        sequence = try row.value(Column.sequence)
        hash = try row.bytes(Column.hash)
        self.clock = clock
        self.payload = payload
    }

    /// The id of the entity this op created.
    var entityID: UUID { UUID(hashPrefix: hash) }

    /// The decodable ops that meet `condition` (on `ops o` and `authors a`), in log order.
    static func fetchAll(_ db: Database, where condition: String, arguments: StatementArguments = []) throws -> [StoredOp] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM ops o JOIN authors a ON a.id = o.author
                WHERE \(condition)
                ORDER BY o.author, o.sequence
                """)
        return try decodable(Row.fetchAll(statement, arguments: arguments))
    }

    /// The score ops of `round`, through the log's `opsByScoredRound` index, in log order.
    static func scores(_ db: Database, round: UUID) throws -> [StoredOp] {
        try fetchAll(db, where: "\(Schema.scoreOfRound) AND \(Schema.counts)", arguments: Schema.roundArguments(round))
    }

    /// Ops joined from a view table `v` with `author` and `sequence` columns.
    static func fetch(_ db: Database, from table: String, where condition: String, arguments: StatementArguments) throws -> [StoredOp] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM \(table) v
                JOIN ops o ON o.author = v.author AND o.sequence = v.sequence
                JOIN authors a ON a.id = v.author
                WHERE \(condition)
                ORDER BY v.author, v.sequence
                """)
        return try decodable(Row.fetchAll(statement, arguments: arguments))
    }

    private static func decodable(_ rows: [Row]) throws -> [StoredOp] {
        var ops: [StoredOp] = []
        ops.reserveCapacity(rows.count)
        for row in rows { if let op = try StoredOp(row: row) { ops.append(op) } }
        return ops
    }
}
