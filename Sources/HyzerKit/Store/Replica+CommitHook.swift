import GRDB

extension Replica {
    /// Calls `willCommit` on the writer's thread just before each commit of this replica's own
    /// writer and `didCommit` straight after it, with the connection open for reads, for as long
    /// as the returned token is kept. `bench` times live pushes with it from one store's commit to
    /// the other's (docs/performance.md, "Live changes").
    package func observeCommits(
        willCommit: @escaping @Sendable () -> Void = {}, didCommit: @escaping @Sendable (Database) -> Void
    ) -> AnyObject {
        let observer = CommitCallback(willCommit: willCommit, didCommit: didCommit)
        database.add(transactionObserver: observer, extent: .observerLifetime)
        return observer
    }
}

private final class CommitCallback: TransactionObserver, Sendable {
    private let willCommit: @Sendable () -> Void
    private let didCommit: @Sendable (Database) -> Void

    init(willCommit: @escaping @Sendable () -> Void, didCommit: @escaping @Sendable (Database) -> Void) {
        self.willCommit = willCommit
        self.didCommit = didCommit
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseWillCommit() throws { willCommit() }
    func databaseDidCommit(_ db: Database) { didCommit(db) }
    func databaseDidRollback(_ db: Database) {}
}
