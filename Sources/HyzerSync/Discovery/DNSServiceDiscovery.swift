#if canImport(dnssd) || canImport(CDNSSD)
    #if canImport(dnssd)
        import dnssd
    #else
        import CDNSSD
    #endif
    import Foundation
    import Synchronization

    /// Discovery through the system's mDNS responder over the Bonjour C API, `dns_sd.h`
    /// (docs/discovery.md, "Why dns_sd.h"): avahi-daemon through avahi's compatibility library on
    /// Linux, mDNSResponder on Apple platforms. Each advertisement and each browse runs on a
    /// thread of its own that waits on the responder's sockets (`DNSServiceRefSockFD`) and hands
    /// each reply to `DNSServiceProcessResult`; every call on a service reference is made on
    /// that thread once it runs.
    ///
    /// A browse resolves what it finds (`DNSServiceResolve`, then `DNSServiceQueryRecord` for
    /// the host's IPv4 address) at most `BrowseSession.resolvesMax` at a time, each given 5 s;
    /// it remembers at most `BrowseSession.announcedMax` announced names and keeps at most its
    /// table's `servicesMax` resolved ones. Names, host names and TXT records beyond their
    /// bounds are ignored.
    public struct DNSServiceDiscovery: ServiceDiscovery {
        /// The service type browsed and advertised.
        public let serviceType: String

        /// Discovery of `serviceType` services in the local domain.
        public init(serviceType: String = "_hyzer._tcp") {
            self.serviceType = serviceType
            #if os(Linux)
                // avahi's compatibility layer prints a warning on stderr at first use, unless told not to.
                setenv("AVAHI_COMPAT_NOWARN", "1", 0)
            #endif
        }

        /// Registers the service with the responder; the registration lasts until stopped.
        public func advertise(name: String, port: Int, txt: ServiceTXT) throws(DiscoveryError) -> any DiscoveryActivity {
            guard DiscoveredService.isValidName(name), (1...65535).contains(port) else { throw DiscoveryError.refused(-65540) }
            let wire = txt.wire
            var ref: DNSServiceRef?
            let error = wire.withUnsafeBytes { raw in
                DNSServiceRegister(
                    &ref, 0, 0, name, serviceType, nil, nil, UInt16(port).bigEndian, UInt16(raw.count), raw.baseAddress,
                    { _, _, _, _, _, _, _ in }, nil)
            }
            guard error == DNSSD.noError, let ref else { throw DNSSD.failure(error) }
            return DNSServiceLoop(session: RegisterSession(ref: ref))
        }

        /// Starts browsing; found services are resolved and put in `services` as they come.
        public func browse(into services: DiscoveredServices) throws(DiscoveryError) -> any DiscoveryActivity {
            let session = BrowseSession(serviceType: serviceType, services: services)
            var ref: DNSServiceRef?
            let error = DNSServiceBrowse(
                &ref, 0, 0, serviceType, nil, BrowseSession.browseReply, Unmanaged.passUnretained(session).toOpaque())
            guard error == DNSSD.noError, let ref else { throw DNSSD.failure(error) }
            session.browseRef = ref
            return DNSServiceLoop(session: session)
        }
    }

    /// The numbers of `dns_sd.h` this file uses (its constants import differently on each platform).
    enum DNSSD {
        static let noError: DNSServiceErrorType = 0
        static let flagAdd: DNSServiceFlags = 0x2
        static let typeA: UInt16 = 1
        static let classIN: UInt16 = 1
        /// The longest C string taken from the responder (a full domain name is at most 1,009 bytes).
        static let stringBytesMax = 1_010

        static func failure(_ code: DNSServiceErrorType) -> DiscoveryError {
            // -65537 (unknown) and -65563 (service not running) are what a missing daemon gives.
            code == -65537 || code == -65563 ? .responderUnavailable(code) : .refused(code)
        }

        /// A C string from the responder, or nil when it is longer than `bytesMax` or not UTF-8.
        static func string(_ pointer: UnsafePointer<CChar>?, bytesMax: Int = stringBytesMax) -> String? {
            guard let pointer else { return nil }
            let length = strnlen(pointer, bytesMax + 1)
            guard length <= bytesMax else { return nil }
            return String(validating: UnsafeBufferPointer(start: pointer, count: length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// What runs on a `DNSServiceLoop`'s thread: the references it waits on, and what to do
    /// with their replies and the passing of time. Used by that thread alone.
    protocol DNSServiceSession: AnyObject {
        /// The references to wait on now.
        var refs: [DNSServiceRef] { get }
        /// After replies were processed, or the wait timed out: expire, start waiting work,
        /// release finished references. Returns the seconds until it needs calling again.
        func housekeeping(now: ContinuousClock.Instant) -> Duration
        /// Releases every reference: the loop ends.
        func close()
    }

    /// One advertisement: its registration is the only reference.
    final class RegisterSession: DNSServiceSession {
        private var ref: DNSServiceRef?
        init(ref: DNSServiceRef) { self.ref = ref }
        var refs: [DNSServiceRef] { ref.map { [$0] } ?? [] }
        func housekeeping(now: ContinuousClock.Instant) -> Duration { .seconds(60) }
        func close() {
            if let ref { DNSServiceRefDeallocate(ref) }
            ref = nil
        }
    }

    /// A thread that waits on a session's references and a wake-up pipe, processes replies as
    /// they come, and ends when stopped (or when nobody holds it any more).
    final class DNSServiceLoop: DiscoveryActivity {
        private let wake: (read: Int32, write: Int32)
        private let stopped = Mutex(false)

        init(session: some DNSServiceSession) {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) != 0 { fds = [-1, -1] }
            wake = (fds[0], fds[1])
            let box = SessionBox(session)
            let wakeRead = fds[0]
            let thread = Thread { DNSServiceLoop.run(box.session, wake: wakeRead) }
            thread.name = "hyzer-dnssd"
            thread.start()
        }

        deinit { stop() }

        func stop() {
            let first = stopped.withLock { stopped in
                defer { stopped = true }
                return !stopped
            }
            guard first else { return }
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
            close(wake.write)
        }

        private static func run(_ session: any DNSServiceSession, wake: Int32) {
            defer {
                session.close()
                close(wake)
            }
            let clock = ContinuousClock()
            var timeout = session.housekeeping(now: clock.now)
            while true {
                let refs = session.refs
                var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
                fds += refs.map { pollfd(fd: DNSServiceRefSockFD($0), events: Int16(POLLIN), revents: 0) }
                let milliseconds = Int32(
                    clamping: max(0, timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000))
                let ready = poll(&fds, nfds_t(fds.count), max(10, milliseconds))
                if ready < 0, errno != EINTR { return }
                if fds[0].revents != 0 { return }
                for (index, ref) in refs.enumerated() where fds[index + 1].revents != 0 {
                    // A reply may have ended another reference: process only those still waited on.
                    guard session.refs.contains(ref) else { continue }
                    if DNSServiceProcessResult(ref) != DNSSD.noError, ref == refs.first {
                        return  // the responder went away
                    }
                }
                timeout = session.housekeeping(now: clock.now)
            }
        }

        /// The session, handed to the thread that alone uses it from then on.
        private final class SessionBox: @unchecked Sendable {
            let session: any DNSServiceSession
            init(_ session: any DNSServiceSession) { self.session = session }
        }
    }
#endif
