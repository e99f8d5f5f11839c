#if !canImport(Glibc) || HYZER_PORTABLE_MONITOR
    import Foundation
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Other processes' commits where there is no inotify (Apple platforms), or on Linux when
    /// built with `-Xswiftc -DHYZER_PORTABLE_MONITOR` (`make test-portable`): the monitor's
    /// thread reads `PRAGMA data_version` after 1, 2, 4, … 128 ms and then every 250 ms while
    /// nothing moves, and after every move from 1 ms again, so another process's commit is seen
    /// within 250 ms and a burst of them at once. It sleeps in `poll(2)` on the wake-up pipe, so
    /// stopping never waits for a timeout. This process's own commits do not wait for it: the
    /// writer's commit observer reports them straight after the commit, as on Linux
    /// (docs/architecture.md, "Platform").
    final class OtherProcessWatch: Sendable {
        /// The waits between reads of `data_version`, in milliseconds; the last repeats.
        static let delays: [Int32] = [1, 2, 4, 8, 16, 32, 64, 128, 250]

        /// Nothing to open: the reporter's read-only connection is all the poll needs.
        init(watching directory: URL) throws {}

        /// The thread's loop: has `reporter` report each moved `data_version`, backing off while
        /// nothing moves, and returns once `wakeup` is rung or its descriptor fails.
        func run(_ reporter: StoreChangeReporter, until wakeup: MonitorWakeup) {
            var step = 0
            var descriptor = pollfd(fd: wakeup.reader, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&descriptor, 1, Self.delays[step])
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                // Rung, or in error: either way the watch is over.
                if descriptor.revents != 0 { return }
                switch reporter.reportIfMoved() {
                case false?: step = min(step + 1, Self.delays.count - 1)
                case true?, nil: step = 0
                }
            }
        }
    }
#endif
