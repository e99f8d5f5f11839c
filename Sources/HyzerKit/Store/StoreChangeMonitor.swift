import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when anything — this process or another one — committed to a replica's store, without
/// polling (docs/sync-protocol.md, "Live changes across processes").
///
/// Both sources confirm with SQLite's `PRAGMA data_version` on a read-only connection of the
/// monitor's own (the number moves when any other connection commits), and a change is reported
/// only when it moved since the last report, whichever source saw it first:
/// - this process's commits, from a GRDB transaction observer on the replica's writer, straight
///   after the commit on the writer's thread: no thread is woken between a commit and its report;
/// - every other process's writes, through inotify on the store directory (`IN_MODIFY` and
///   `IN_CLOSE_WRITE` of `replica.sqlite-wal` and `replica.sqlite`), on one dedicated thread that
///   sleeps in `poll(2)` with no timeout while nothing happens. A write to the WAL comes before
///   its commit is visible (the commit ends with an fsync and an update of the shared index,
///   which inotify does not see), so after a write with no visible commit the thread checks again
///   after 1, 2, 4, … 2,048 ms (about 4 s in all, for a slow fsync) and then sleeps until the
///   next event.
public final class StoreChangeMonitor: Sendable {
    private let inotify: Int32
    private let wakeup: Wakeup
    private let reporter: Reporter
    /// Kept alive here: GRDB holds transaction observers weakly.
    private let observer: CommitObserver
    private let started = Mutex(false)

    /// The files whose writes mean a commit may have happened.
    private static let storeFiles: Set<String> = [Replica.databaseFileName, Replica.databaseFileName + "-wal"]
    /// Rechecks after a write with no visible commit, in milliseconds.
    private static let settleDelays: [Int32] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]

    init(replica: Replica) throws {
        let (directory, database) = (replica.directory, replica.database)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let connection = try DatabaseQueue(
            path: directory.appendingPathComponent(Replica.databaseFileName).path, configuration: configuration)
        reporter = Reporter(connection: connection)
        inotify = try Self.watch(directory)
        do {
            wakeup = try Wakeup()
        } catch {
            close(inotify)
            throw error
        }
        observer = CommitObserver(replica: replica, reporter: reporter)
        database.add(transactionObserver: observer, extent: .observerLifetime)
    }

    deinit {
        close(inotify)
    }

    /// An inotify descriptor watching `directory`'s files for writes. Linux only: an Apple build
    /// needs a kqueue (`DispatchSource.makeFileSystemObjectSource`) watch of the WAL file in its
    /// place (docs/architecture.md, "Platform"); until one is written, it refuses to start.
    private static func watch(_ directory: URL) throws -> Int32 {
        #if canImport(Glibc)
            let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard inotify >= 0 else {
                throw ReplicaError.storage(detail: Self.inotifyFailure("cannot start inotify", errno))
            }
            guard inotify_add_watch(inotify, directory.path, UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE)) >= 0 else {
                let error = errno
                close(inotify)
                throw ReplicaError.storage(detail: Self.inotifyFailure("cannot watch \(directory.path)", error))
            }
            return inotify
        #else
            throw ReplicaError.storage(detail: "live changes need inotify, which this platform does not have")
        #endif
    }

    private static func inotifyFailure(_ what: String, _ error: Int32) -> String {
        "\(what): \(String(cString: strerror(error))); live changes need inotify (raise fs.inotify.max_user_instances or max_user_watches if they are exhausted)"
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

    /// The thread's loop: sleeps until inotify wakes it, reports each moved `data_version`.
    private func watch() {
        var settle: Int?
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup.reader, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let timeout = settle.map { Self.settleDelays[$0] } ?? -1
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            // A descriptor in error would wake poll at once forever: end the stream instead.
            if descriptors.contains(where: { $0.revents & Int16(POLLERR | POLLNVAL) != 0 }) { break }
            var written = false
            if descriptors[0].revents != 0 { written = drainInotify() }
            if descriptors[1].revents != 0 { break }
            let moved = reporter.reportIfMoved()
            if moved == true {
                settle = nil
            } else if written || moved == nil {
                settle = 0
            } else if ready == 0, let step = settle {
                settle = step + 1 < Self.settleDelays.count ? step + 1 : nil
            }
        }
        reporter.finish()
    }

    /// Reads every queued inotify event; true when one names a store file or the queue overflowed.
    private func drainInotify() -> Bool {
        #if canImport(Glibc)
            var written = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                guard count > 0 else { return written }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                    let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                    let nameEnd = min(offset + header + length, count)
                    let name = buffer[(offset + header)..<nameEnd].prefix { $0 != 0 }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 || Self.storeFiles.contains(String(decoding: name, as: UTF8.self)) {
                        written = true
                    }
                    offset = nameEnd
                }
            }
        #else
            return true  // never reached: the monitor does not start without inotify
        #endif
    }
}

/// A pipe that stops the monitor's thread: the stream's end writes one byte.
private final class Wakeup: Sendable {
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
/// writer's commit observer or the inotify thread. The check and the report happen under one
/// lock, so a moved number is reported once, and a report comes after the commits it counts are
/// visible. While the writer commits, the inotify thread leaves the report to it (it checks
/// again a millisecond later): the writer's own commits are reported with the commit.
private final class Reporter: Sendable {
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
    private let reporter: Reporter

    init(replica: Replica, reporter: Reporter) {
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
