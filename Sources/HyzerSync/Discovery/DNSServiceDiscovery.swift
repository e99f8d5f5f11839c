#if canImport(dnssd) || canImport(CDNSSD)
    #if canImport(dnssd)
        import dnssd
    #else
        import CDNSSD
    #endif
    import Foundation

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
            let session = RegisterSession(name: name, serviceType: serviceType, port: UInt16(port), txt: txt.wire)
            let error = session.register()
            guard error == DNSSD.noError else { throw DNSSD.failure(error) }
            return DNSServiceLoop(session: session)
        }

        /// Starts browsing; found services are resolved and put in `services` as they come.
        public func browse(into services: DiscoveredServices) throws(DiscoveryError) -> any DiscoveryActivity {
            let session = BrowseSession(serviceType: serviceType, services: services)
            let error = session.browse()
            guard error == DNSSD.noError else { throw DNSSD.failure(error) }
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
#endif
