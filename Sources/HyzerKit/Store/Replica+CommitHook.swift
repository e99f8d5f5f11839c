import GRDB

extension Replica {
    /// Calls `body` on the writer's thread straight after each commit of this replica's own
    /// writer, with the connection open for reads, for as long as the returned token is kept.
    /// `bench` times live pushes with it from one store's commit to the other's
    /// (docs/performance.md, "Live changes").
    package func observeCommits(_ body: @escaping @Sendable (Database) -> Void) -> AnyObject {
        let observer = CommitCallback(body)
        database.add(transactionObserver: observer, extent: .observerLifetime)
        return observer
    }
}

private final class CommitCallback: TransactionObserver, Sendable {
    private let body: @Sendable (Database) -> Void

    init(_ body: @escaping @Sendable (Database) -> Void) {
        self.body = body
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { body(db) }
    func databaseDidRollback(_ db: Database) {}
}
