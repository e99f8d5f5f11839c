#if canImport(dnssd) || canImport(CDNSSD)
    #if canImport(dnssd)
        import dnssd
    #else
        import CDNSSD
    #endif
    import Foundation

    /// One advertisement of `DNSServiceDiscovery`, run on its loop's thread: its registration is
    /// the only reference. When the responder drops it (avahi-daemon restarted, a name conflict
    /// it could not resolve), it registers again every `retryAfter` until it holds.
    final class RegisterSession: DNSServiceSession {
        /// The pause before registering again after a failure.
        static let retryAfter = Duration.seconds(5)

        let name: String
        let serviceType: String
        let port: UInt16
        let txt: [UInt8]
        private var ref: DNSServiceRef?
        private var broken = false
        private var retryAt: ContinuousClock.Instant?

        init(name: String, serviceType: String, port: UInt16, txt: [UInt8]) {
            self.name = name
            self.serviceType = serviceType
            self.port = port
            self.txt = txt
        }

        /// Registers the service; the responder's error code, or 0.
        func register() -> DNSServiceErrorType {
            var made: DNSServiceRef?
            let error = txt.withUnsafeBytes { raw in
                DNSServiceRegister(
                    &made, 0, 0, name, serviceType, nil, nil, port.bigEndian, UInt16(raw.count), raw.baseAddress, Self.reply,
                    Unmanaged.passUnretained(self).toOpaque())
            }
            guard error == DNSSD.noError, let made else { return error == DNSSD.noError ? -65537 : error }
            ref = made
            return DNSSD.noError
        }

        var refs: [DNSServiceRef] { ref.map { [$0] } ?? [] }

        func failed(_ ref: DNSServiceRef) { broken = true }

        func housekeeping(now: ContinuousClock.Instant) -> Duration {
            if broken {
                broken = false
                if let ref { DNSServiceRefDeallocate(ref) }
                ref = nil
                retryAt = now + Self.retryAfter
            }
            if ref == nil, let due = retryAt, now >= due {
                retryAt = register() == DNSSD.noError ? nil : now + Self.retryAfter
            }
            return retryAt.map { max(.zero, $0 - now) } ?? .seconds(60)
        }

        func close() {
            if let ref { DNSServiceRefDeallocate(ref) }
            ref = nil
        }

        static let reply: DNSServiceRegisterReply = { _, _, error, _, _, _, context in
            guard let context, error != DNSSD.noError else { return }
            Unmanaged<RegisterSession>.fromOpaque(context).takeUnretainedValue().broken = true
        }
    }
#endif
