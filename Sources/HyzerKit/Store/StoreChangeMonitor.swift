import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells when anything — this process or another one — committed to a replica's store
/// (docs/sync-protocol.md, "Live changes across processes").
///
/// Both sources confirm with SQLite's `PRAGMA data_version` on a read-only connection of the
/// monitor's own (the number moves when any other connection commits), and a change is reported
/// only when it moved since the last report, whichever source saw it first:
/// - this process's commits, from a GRDB transaction observer on the replica's writer, straight
///   after the commit on the writer's thread: no thread is woken between a commit and its report;
/// - every other process's writes, on one dedicated thread (`OtherProcessWatch`): on Linux,
///   inotify on the store directory, with no polling; where there is no inotify (Apple
///   platforms), or on Linux built with `HYZER_PORTABLE_MONITOR`, `data_version` read with
///   backoff, at least every 250 ms (docs/architecture.md, "Platform").
public final class StoreChangeMonitor: Sendable {
    private let others: OtherProcessWatch
    private let wakeup: MonitorWakeup
    private let reporter: StoreChangeReporter
    /// Kept alive here: GRDB holds transaction observers weakly.
    private let observer: CommitObserver
    private let started = Mutex(false)

    init(replica: Replica) throws {
        let (directory, database) = (replica.directory, replica.database)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let connection = try DatabaseQueue(
            path: directory.appendingPathComponent(Replica.databaseFileName).path, configuration: configuration)
        reporter = StoreChangeReporter(connection: connection)
        others = try OtherProcessWatch(watching: directory)
        wakeup = try MonitorWakeup()
        observer = CommitObserver(replica: replica, reporter: reporter)
        database.add(transactionObserver: observer, extent: .observerLifetime)
    }

    /// One element per change of the store after this call (a burst of commits may yield one
    /// element). Ends when the consuming task is cancelled. A monitor serves one consumer, this
    /// stream or `report(_:)`: a later call returns a stream that has already ended.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard start({ _ in continuation.yield() }, finished: { continuation.finish() }) else {
            continuation.finish()
            return stream
        }
        let wakeup = wakeup
        continuation.onTermination = { _ in wakeup.stop() }
        return stream
    }

    /// Calls `report` once per change of the store after this call, until the calling task is
    /// cancelled, with no task between a commit and its report: a commit of this process's writer
    /// is reported on the writer's thread straight after it, with the store as that commit left
    /// it (`WriterCommit`: reads on the writer's connection, whose pages are still in its cache);
    /// a change made elsewhere, on the monitor's thread, with nil. Reports never overlap. `report`
    /// must not wait for anything that waits for the writer. A monitor serves one consumer,
    /// `changes()` or this: a later call returns at once.
    public func report(_ report: @escaping @Sendable (WriterCommit?) -> Void) async {
        let (ended, end) = AsyncStream<Void>.makeStream()
        guard start(report, finished: { end.finish() }) else { return }
        let wakeup = wakeup
        await withTaskCancellationHandler {
            for await _ in ended {}
        } onCancel: {
            wakeup.stop()
        }
    }

    /// Starts reporting to `report` and the thread that watches other processes' writes; false
    /// when the monitor already serves a consumer.
    private func start(_ report: @escaping @Sendable (WriterCommit?) -> Void, finished: @escaping @Sendable () -> Void) -> Bool {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return false }
        reporter.start(report, finished: finished)
        let thread = Thread { [self] in watch() }
        thread.name = "store-changes"
        thread.start()
        return true
    }

    /// The thread's loop: watches other processes' commits until the stream ends.
    private func watch() {
        others.run(reporter, until: wakeup)
        reporter.finish()
    }
}

/// A pipe that stops the monitor's thread: the stream's end writes one byte.
final class MonitorWakeup: Sendable {
    let reader: Int32
    private let writer: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw ReplicaError.storage(detail: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        reader = ends[0]
        writer = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        close(reader)
        close(writer)
    }

    /// Never blocks: when the pipe is full, the stop is already pending.
    func stop() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }
}

/// The store straight after a commit of this process's writer, as `StoreChangeMonitor.report(_:)`
/// hands it over: for reads on the writer's connection
/// (`Replica.deltaRead(above:segmentBytesMax:opsMax:after:)`), and only while the report runs.
public struct WriterCommit {
    /// The replica whose writer committed.
    public let replica: Replica
    let db: Database
}

/// Reports a change once per move of `data_version`, whichever source checks first: the
/// writer's commit observer or the monitor's thread. The check and the report happen under one
/// lock, so a moved number is reported once, and a report comes after the commits it counts are
/// visible. While the writer commits, the monitor's thread leaves the report to it (it checks
/// again a millisecond later): the writer's own commits are reported with the commit.
final class StoreChangeReporter: Sendable {
    private struct State {
        var report: (@Sendable (WriterCommit?) -> Void)?
        var finished: (@Sendable () -> Void)?
        var last: Int?
        /// Between the writer's "will commit" and its commit's report (or its rollback).
        var writerCommitting = false
    }

    private let connection: DatabaseQueue
    private let state = Mutex(State())

    init(connection: DatabaseQueue) {
        self.connection = connection
    }

    /// Reports to `report` from now on, from the current number; `finished` is told when
    /// reporting ends.
    func start(_ report: @escaping @Sendable (WriterCommit?) -> Void, finished: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.last = try? version()
            (state.report, state.finished) = (report, finished)
        }
    }

    /// Reports a change when the number moved since the last report, with `commit` when the
    /// writer's own commit moved it: true when it did, nil when it cannot be read or the writer
    /// is committing (check again). Before `start` and after `finish` it reports nothing.
    @discardableResult
    func reportIfMoved(_ commit: WriterCommit? = nil) -> Bool? {
        state.withLock { state in
            if commit != nil {
                state.writerCommitting = false
            } else if state.writerCommitting {
                return nil
            }
            guard let report = state.report else { return false }
            guard let version = try? version() else { return nil }
            guard version != state.last else { return false }
            state.last = version
            report(commit)
            return true
        }
    }

    /// The writer is about to commit (true), or rolled back (false).
    func writerCommits(_ committing: Bool) {
        state.withLock { $0.writerCommitting = committing }
    }

    /// Ends reporting.
    func finish() {
        state.withLock { state in
            state.finished?()
            (state.report, state.finished) = (nil, nil)
        }
    }

    /// A number that changes whenever another connection committed since the last call.
    private func version() throws -> Int {
        try connection.inDatabase { db in try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0 }
    }
}

/// Reports each commit of the replica's own writer, on the writer's thread.
private final class CommitObserver: TransactionObserver, Sendable {
    private let replica: Replica
    private let reporter: StoreChangeReporter

    init(replica: Replica, reporter: StoreChangeReporter) {
        self.replica = replica
        self.reporter = reporter
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseWillCommit() throws { reporter.writerCommits(true) }
    func databaseDidCommit(_ db: Database) { reporter.reportIfMoved(WriterCommit(replica: replica, db: db)) }
    func databaseDidRollback(_ db: Database) { reporter.writerCommits(false) }
}

extension Replica {
    /// A monitor of this store's changes, for live sync and `standings --watch`.
    public func changeMonitor() throws -> StoreChangeMonitor {
        do {
            return try StoreChangeMonitor(replica: self)
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        }
    }
}
