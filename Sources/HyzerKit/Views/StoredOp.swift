import Foundation
import GRDB
import HyzerDomain

/// An op read back from the log together with its decoded payload, for building views.
struct StoredOp {
    let author: AuthorID
    let sequence: UInt64
    let hash: [UInt8]
    let clock: HLCTimestamp
    let payload: OpPayload

    /// The columns `init(row:)` reads, in order, for a query joining `ops o` and `authors a`.
    static let columns = "a.key, o.sequence, o.hash, o.tail"

    /// `nil` when the op's payload cannot be decoded (such ops change no view).
    init?(row: Row) {
        // The stored hash is used as it is: `verify` checks it, views only need the tail.
        let tail: Data = row[3]
        guard tail.count > SignedOp.clockBytes else { return nil }
        var reader = ByteReader(tail.prefix(SignedOp.clockBytes))
        guard let clock = try? reader.readTimestamp(),
            let payload = try? OpPayload(decoding: tail.dropFirst(SignedOp.clockBytes))
        else { return nil }
        author = AuthorID(bytes: Array(row[0] as Data))!
        sequence = UInt64(row[1] as Int64)
        hash = Array(row[2] as Data)
        self.clock = clock
        self.payload = payload
    }

    /// The id of the entity this op created.
    var entityID: UUID { UUID(hashPrefix: hash) }

    /// The score ops of `round`, through the log's `opsByScoredRound` index, in log order.
    static func scores(_ db: Database, round: UUID) throws -> [StoredOp] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(columns) FROM ops o JOIN authors a ON a.id = o.author
                WHERE \(Schema.scoreOfRound) AND \(Schema.counts)
                ORDER BY o.author, o.sequence
                """)
        return try Row.fetchAll(statement, arguments: Schema.roundArguments(round)).compactMap(StoredOp.init(row:))
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
        return try Row.fetchAll(statement, arguments: arguments).compactMap(StoredOp.init(row:))
    }
}
