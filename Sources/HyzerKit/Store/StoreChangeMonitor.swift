import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when anything — this process or another one — committed to a replica's store, without
/// polling (docs/sync-protocol.md, "Live changes across processes").
///
/// Two sources wake one dedicated thread, which sleeps in `poll(2)` with no timeout while nothing
/// happens: this process's commits, through a GRDB transaction observer on the replica's writer,
/// and every other process's writes, through inotify on the store directory (`IN_MODIFY` and
/// `IN_CLOSE_WRITE` of `replica.sqlite-wal` and `replica.sqlite`). The thread then confirms with
/// SQLite's `PRAGMA data_version` on a connection of its own (the counter moves when any other
/// connection commits) and reports a change only when the counter moved. A write to the WAL
/// comes before its commit is visible (the commit ends with an fsync and an update of the shared
/// index, which inotify does not see), so after a write with no visible commit the thread checks
/// again after 1, 2, 4, … 2,048 ms (about 4 s in all, for a slow fsync) and then sleeps until
/// the next event.
public final class StoreChangeMonitor: Sendable {
    private let connection: DatabaseQueue
    private let inotify: Int32
    private let wakeup: Wakeup
    /// Kept alive here: GRDB holds transaction observers weakly.
    private let observer: CommitObserver
    private let started = Mutex(false)

    /// The files whose writes mean a commit may have happened.
    private static let storeFiles: Set<String> = [Replica.databaseFileName, Replica.databaseFileName + "-wal"]
    /// Rechecks after a write with no visible commit, in milliseconds.
    private static let settleDelays: [Int32] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]

    init(directory: URL, database: DatabasePool) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path, configuration: configuration)
        inotify = try Self.watch(directory)
        do {
            wakeup = try Wakeup()
        } catch {
            close(inotify)
            throw error
        }
        observer = CommitObserver(wakeup: wakeup)
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

    /// A number that changes whenever another connection committed since the last call.
    func version() throws -> Int {
        try connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    /// One element per change of the store after this call (a burst of commits may yield one
    /// element). Ends when the consuming task is cancelled. A monitor serves one stream: later
    /// calls return a stream that has already ended.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else {
            continuation.finish()
            return stream
        }
        let baseline = try? version()
        let wakeup = wakeup
        continuation.onTermination = { _ in wakeup.signal(.stop) }
        let thread = Thread { [self] in watch(from: baseline, continuation) }
        thread.name = "store-changes"
        thread.start()
        return stream
    }

    /// The thread's loop: sleeps until a source wakes it, reports each moved `data_version`.
    private func watch(from baseline: Int?, _ continuation: AsyncStream<Void>.Continuation) {
        var last = baseline
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
            if descriptors[1].revents != 0, wakeup.drain().contains(.stop) { break }
            let version = try? version()
            if let version, version != last {
                last = version
                settle = nil
                continuation.yield()
            } else if written || version == nil {
                settle = 0
            } else if ready == 0, let step = settle {
                settle = step + 1 < Self.settleDelays.count ? step + 1 : nil
            }
        }
        continuation.finish()
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

/// A pipe that wakes the monitor's thread: one byte per signal.
private final class Wakeup: Sendable {
    enum Signal: UInt8 {
        case commit = 1
        case stop = 2
    }

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

    /// Never blocks: when the pipe is full, a wake-up is already pending.
    func signal(_ signal: Signal) {
        var byte = signal.rawValue
        _ = write(writer, &byte, 1)
    }

    /// Empties the pipe and returns the signals it held.
    func drain() -> Set<Signal> {
        var signals: Set<Signal> = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            guard count > 0 else { return signals }
            for byte in buffer[..<count] { if let signal = Signal(rawValue: byte) { signals.insert(signal) } }
        }
    }
}

/// Wakes the monitor after each commit of the replica's own writer.
private final class CommitObserver: TransactionObserver, Sendable {
    private let wakeup: Wakeup

    init(wakeup: Wakeup) {
        self.wakeup = wakeup
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { wakeup.signal(.commit) }
    func databaseDidRollback(_ db: Database) {}
}

extension Replica {
    /// A monitor of this store's changes, for live sync and `standings --watch`.
    public func changeMonitor() throws -> StoreChangeMonitor {
        do {
            return try StoreChangeMonitor(directory: directory, database: database)
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        }
    }
}
