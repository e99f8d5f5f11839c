import GRDB
import HyzerDomain
import Synchronization

/// The version vector as the writer's connection last read it after an ingest
/// (`Replica.ingestReadingVector`), kept so the next one reads again only the authors whose rows
/// changed since, usually the one or two the ingest wrote, rather than every author the store
/// holds (docs/store.md, "Reads kept between changes").
///
/// Every change to the `authors` table reaches it one of two ways: a commit of this writer's
/// connection, whatever wrote it (an ingest, a command, a release of held segments, a
/// membership change), is seen row by row as a transaction observer; a commit of any other
/// connection, in this process or another, moves the writer's `PRAGMA data_version`, and the
/// vector is then read whole. A derived copy, never the truth: nothing but the vector an ingest
/// reports is taken from it.
final class WriterVector: TransactionObserver, Sendable {
    private struct State {
        /// Whether this observes the writer's connection yet (from the first read on).
        var observing = false
        /// The vector as read, and the writer's data version then.
        var kept: (dataVersion: Int64, vector: VersionVector)?
        /// The `authors` rows changed by commits of the writer since `kept` was read; nil when
        /// the next read is whole (a row deleted, or more than `changedRowsMax` changed).
        var changed: Set<Int64>? = []
        /// The rows changed by the transaction under way, until it commits or rolls back.
        var pending: Set<Int64>? = []
    }

    private let state = Mutex(State())

    /// Past this many changed rows the vector is read whole: one scan is then cheaper.
    static let changedRowsMax = 32

    /// The store's vector, read on the writer's connection `db` outside any transaction: the
    /// kept one with the changed rows read again when no other connection committed since it
    /// was read, else read whole. Read from another observer's `databaseDidCommit`, the rows of
    /// the commit just made may not have reached `changed` yet (observers are told one after
    /// another): the rows still pending are read again too.
    func vector(_ db: Database) throws -> VersionVector {
        let dataVersion = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        let (observing, kept, changed) = state.withLock { state in
            defer { (state.observing, state.kept, state.changed) = (true, nil, []) }
            return (state.observing, state.kept, Self.adding(state.pending, to: state.changed))
        }
        if !observing { db.add(transactionObserver: self, extent: .databaseLifetime) }
        var vector: VersionVector
        if let kept, let changed, kept.dataVersion == dataVersion {
            vector = kept.vector
            let statement = try db.cachedStatement(sql: "\(Replica.vectorColumns) WHERE id = ?")
            for id in changed {
                try statement.setArguments([id])
                try statement.forEachRawRow(db) { row in
                    guard let (author, entry) = Replica.vectorEntry(row) else { return }
                    vector.set(entry, of: author)
                }
            }
        } else {
            vector = try Replica.versionVector(db)
        }
        state.withLock { $0.kept = (dataVersion, vector) }
        return vector
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .insert(let table), .delete(let table): table == "authors"
        case .update(let table, let columns): table == "authors" && !columns.isDisjoint(with: Replica.vectorColumnNames)
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        // A row deleted takes its key with it: the next read is whole.
        let row = event.kind == .delete ? nil : event.rowID
        state.withLock { state in state.pending = Self.adding(row.map { [$0] }, to: state.pending) }
    }

    func databaseDidCommit(_ db: Database) {
        state.withLock { state in
            state.changed = Self.adding(state.pending, to: state.changed)
            state.pending = []
        }
    }

    func databaseDidRollback(_ db: Database) {
        state.withLock { $0.pending = [] }
    }

    /// `rows` with `added`, or nil (the next read is whole) when either is nil or they are too many.
    private static func adding(_ added: Set<Int64>?, to rows: Set<Int64>?) -> Set<Int64>? {
        guard let added, let rows else { return nil }
        let union = rows.union(added)
        return union.count <= changedRowsMax ? union : nil
    }
}
