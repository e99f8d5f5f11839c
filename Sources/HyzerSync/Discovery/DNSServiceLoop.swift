#if canImport(dnssd) || canImport(CDNSSD)
    #if canImport(dnssd)
        import dnssd
    #else
        import CDNSSD
    #endif
    import Foundation
    import Synchronization

    /// What runs on a `DNSServiceLoop`'s thread: the references it waits on, and what to do
    /// with their replies, their failures and the passing of time. Used by that thread alone.
    protocol DNSServiceSession: AnyObject {
        /// The references to wait on now.
        var refs: [DNSServiceRef] { get }
        /// `DNSServiceProcessResult` failed on `ref`: its connection to the responder broke.
        func failed(_ ref: DNSServiceRef)
        /// After replies were processed, or the wait timed out: expire, retry, start waiting
        /// work, release finished references. Returns the time until it needs calling again.
        func housekeeping(now: ContinuousClock.Instant) -> Duration
        /// Releases every reference: the loop ends.
        func close()
    }

    /// A thread that waits on a session's references and a wake-up pipe, processes replies as
    /// they come, and ends when stopped (or when nobody holds it any more).
    final class DNSServiceLoop: DiscoveryActivity {
        private let wake: (read: Int32, write: Int32)
        private let stopped: Stopped

        init(session: some DNSServiceSession) {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) != 0 { fds = [-1, -1] }
            wake = (fds[0], fds[1])
            let (box, stopped) = (SessionBox(session), Stopped())
            self.stopped = stopped
            let wakeRead = fds[0]
            let thread = Thread { DNSServiceLoop.run(box.session, wake: wakeRead, stopped: stopped) }
            thread.name = "hyzer-dnssd"
            thread.start()
        }

        deinit { stop() }

        func stop() {
            guard stopped.set() else { return }
            guard wake.write >= 0 else { return }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
            close(wake.write)
        }

        private static func run(_ session: any DNSServiceSession, wake: Int32, stopped: Stopped) {
            defer {
                session.close()
                if wake >= 0 { close(wake) }
            }
            let clock = ContinuousClock()
            var timeout = session.housekeeping(now: clock.now)
            while !stopped.isSet {
                let refs = session.refs
                var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                fds += refs.map { pollfd(fd: DNSServiceRefSockFD($0), events: Int16(POLLIN), revents: 0) }
                // Without a wake-up pipe (none could be made), the loop looks at `stopped` every second.
                if wake < 0 { timeout = min(timeout, .seconds(1)) }
                let (seconds, attoseconds) = timeout.components
                let milliseconds = Int32(clamping: max(0, seconds) * 1_000 + max(0, attoseconds) / 1_000_000_000_000_000)
                let ready = poll(&fds, nfds_t(fds.count), max(10, milliseconds))
                if ready < 0, errno != EINTR { return }
                if fds[0].revents != 0 { return }
                for (index, ref) in refs.enumerated() where fds[index + 1].revents != 0 {
                    // A reply may have ended another reference: process only those still waited on.
                    guard session.refs.contains(ref) else { continue }
                    if DNSServiceProcessResult(ref) != DNSSD.noError { session.failed(ref) }
                }
                timeout = session.housekeeping(now: clock.now)
            }
        }

        /// The session, handed to the thread that alone uses it from then on.
        private final class SessionBox: @unchecked Sendable {
            let session: any DNSServiceSession
            init(_ session: any DNSServiceSession) { self.session = session }
        }

        /// Whether the loop was stopped; set once.
        private final class Stopped: Sendable {
            private let flag = Mutex(false)
            var isSet: Bool { flag.withLock { $0 } }
            /// Sets it; true the first time.
            func set() -> Bool {
                flag.withLock { flag in
                    defer { flag = true }
                    return !flag
                }
            }
        }
    }
#endif
