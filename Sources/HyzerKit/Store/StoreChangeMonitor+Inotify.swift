#if canImport(Glibc) && !HYZER_PORTABLE_MONITOR
    import Foundation
    import Glibc

    /// Other processes' commits on Linux, without polling: inotify on the store directory
    /// (`IN_MODIFY` and `IN_CLOSE_WRITE` of `replica.sqlite-wal` and `replica.sqlite`), on the
    /// monitor's thread, which sleeps in `poll(2)` with no timeout while nothing happens. A write
    /// to the WAL comes before its commit is visible (the commit ends with an fsync and an update
    /// of the shared index, which inotify does not see), so after a write with no visible commit
    /// the thread checks again after 1, 2, 4, … 2,048 ms (about 4 s in all, for a slow fsync) and
    /// then sleeps until the next event. Built without `HYZER_PORTABLE_MONITOR` on Linux;
    /// elsewhere `StoreChangeMonitor+Polling.swift` stands in its place.
    final class OtherProcessWatch: Sendable {
        private let inotify: Int32

        /// The files whose writes mean a commit may have happened.
        private static let storeFiles: Set<String> = [Replica.databaseFileName, Replica.databaseFileName + "-wal"]
        /// Rechecks after a write with no visible commit, in milliseconds.
        private static let settleDelays: [Int32] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]

        /// An inotify descriptor watching `directory`'s files for writes.
        init(watching directory: URL) throws {
            inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard inotify >= 0 else {
                throw ReplicaError.storage(detail: Self.failure("cannot start inotify", errno))
            }
            guard inotify_add_watch(inotify, directory.path, UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE)) >= 0 else {
                let error = errno
                close(inotify)
                throw ReplicaError.storage(detail: Self.failure("cannot watch \(directory.path)", error))
            }
        }

        deinit {
            close(inotify)
        }

        private static func failure(_ what: String, _ error: Int32) -> String {
            "\(what): \(String(cString: strerror(error))); live changes need inotify (raise fs.inotify.max_user_instances or max_user_watches if they are exhausted)"
        }

        /// The thread's loop: sleeps until inotify wakes it, has `reporter` report each moved
        /// `data_version`, and returns once `wakeup` is rung or a descriptor fails.
        func run(_ reporter: StoreChangeReporter, until wakeup: MonitorWakeup) {
            var settle: Int?
            var descriptors = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeup.reader, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                let timeout = settle.map { Self.settleDelays[$0] } ?? -1
                let ready = poll(&descriptors, 2, timeout)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                // A descriptor in error would wake poll at once forever: end the stream instead.
                if descriptors.contains(where: { $0.revents & Int16(POLLERR | POLLNVAL) != 0 }) { return }
                var written = false
                if descriptors[0].revents != 0 { written = drain() }
                if descriptors[1].revents != 0 { return }
                let moved = reporter.reportIfMoved()
                if moved == true {
                    settle = nil
                } else if written || moved == nil {
                    settle = 0
                } else if ready == 0, let step = settle {
                    settle = step + 1 < Self.settleDelays.count ? step + 1 : nil
                }
            }
        }

        /// Reads every queued inotify event; true when one names a store file or the queue overflowed.
        private func drain() -> Bool {
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
        }
    }
#endif
