#if canImport(dnssd) || canImport(CDNSSD)
    #if canImport(dnssd)
        import dnssd
    #else
        import CDNSSD
    #endif
    import Foundation

    /// One browse of `DNSServiceDiscovery`, run on its loop's thread: names announced on the
    /// LAN are resolved in turn, at most `resolvesMax` at once, each first to a host, port and
    /// TXT record, then to the host's IPv4 address, and put in `services`; names withdrawn are
    /// taken out. Everything it holds is bounded, whatever the LAN announces. When the responder
    /// drops the browse (avahi-daemon restarted), every service found is lost and the browse
    /// starts again every `retryAfter` until it holds.
    final class BrowseSession: DNSServiceSession {
        /// Resolutions under way at once.
        static let resolvesMax = 8
        /// Names remembered (announced, waiting or resolved); more announcements are ignored
        /// until some are withdrawn.
        static let announcedMax = 8_192
        /// Time a resolution has before it is given up.
        static let resolveTimeout = Duration.seconds(5)
        /// Times a name is resolved before it is given up until announced again.
        static let attemptsMax = 3
        /// The pause before browsing again after the responder dropped the browse.
        static let retryAfter = Duration.seconds(5)

        let serviceType: String
        let services: DiscoveredServices
        private var browseRef: DNSServiceRef?
        private var browseBroken = false
        private var retryAt: ContinuousClock.Instant?
        /// Announced names: the interface last seen on, and how many announcements (per
        /// interface and protocol) are standing.
        private var announced: [String: (interface: UInt32, domain: String, count: Int)] = [:]
        /// Names waiting to be resolved, in order; a name withdrawn meanwhile is skipped.
        private var waiting: [(name: String, attempts: Int)] = []
        private var waitingHead = 0
        private var resolving: [Resolution] = []
        /// References finished during a reply, released after it (never inside their own callback).
        /// Each keeps its resolution, the context of its callbacks, alive until then.
        private var retired: [(ref: DNSServiceRef, resolution: Resolution)] = []

        init(serviceType: String, services: DiscoveredServices) {
            self.serviceType = serviceType
            self.services = services
        }

        /// Starts browsing; the responder's error code, or 0.
        func browse() -> DNSServiceErrorType {
            var made: DNSServiceRef?
            let error = DNSServiceBrowse(&made, 0, 0, serviceType, nil, Self.browseReply, Unmanaged.passUnretained(self).toOpaque())
            guard error == DNSSD.noError, let made else { return error == DNSSD.noError ? -65537 : error }
            browseRef = made
            return DNSSD.noError
        }

        var refs: [DNSServiceRef] { (browseRef.map { [$0] } ?? []) + resolving.compactMap(\.ref) }

        func failed(_ ref: DNSServiceRef) {
            if ref == browseRef {
                browseBroken = true
            } else if let resolution = resolving.first(where: { $0.ref == ref }) {
                finish(resolution)
            }
        }

        /// The browse broke: everything it found is lost, and it starts again after `retryAfter`.
        private func restart(now: ContinuousClock.Instant) {
            browseBroken = false
            if let browseRef { DNSServiceRefDeallocate(browseRef) }
            browseRef = nil
            for resolution in resolving { retire(resolution) }
            resolving = []
            for name in announced.keys { services.lost(name) }
            announced = [:]
            waiting = []
            waitingHead = 0
            retryAt = now + Self.retryAfter
        }

        func housekeeping(now: ContinuousClock.Instant) -> Duration {
            if browseBroken { restart(now: now) }
            if browseRef == nil, let due = retryAt, now >= due {
                retryAt = browse() == DNSSD.noError ? nil : now + Self.retryAfter
            }
            for resolution in resolving where resolution.deadline < now {
                finish(resolution)
                if resolution.attempts < Self.attemptsMax { enqueue(resolution.name, attempts: resolution.attempts) }
            }
            for (ref, _) in retired { DNSServiceRefDeallocate(ref) }
            retired = []
            while resolving.count < Self.resolvesMax, let (name, attempts) = nextWaiting() {
                guard let entry = announced[name] else { continue }
                let resolution = Resolution(session: self, name: name, attempts: attempts + 1, deadline: now + Self.resolveTimeout)
                var ref: DNSServiceRef?
                let error = DNSServiceResolve(
                    &ref, 0, entry.interface, name, serviceType, entry.domain, Self.resolveReply,
                    Unmanaged.passUnretained(resolution).toOpaque())
                guard error == DNSSD.noError, let ref else { continue }
                resolution.ref = ref
                resolving.append(resolution)
            }
            let retry = retryAt.map { [max(.zero, $0 - now)] } ?? []
            return (resolving.map { $0.deadline - now } + retry).min() ?? .seconds(60)
        }

        func close() {
            for resolution in resolving { retire(resolution) }
            for (ref, _) in retired { DNSServiceRefDeallocate(ref) }
            resolving = []
            retired = []
            if let browseRef { DNSServiceRefDeallocate(browseRef) }
            browseRef = nil
        }

        // MARK: Replies

        func browsed(flags: DNSServiceFlags, interface: UInt32, error: DNSServiceErrorType, name: String?, domain: String?) {
            guard error == DNSSD.noError else {
                browseBroken = true  // the responder dropped the browse: started again after housekeeping
                return
            }
            guard let name, let domain, DiscoveredService.isValidName(name) else { return }
            if flags & DNSSD.flagAdd != 0 {
                if let entry = announced[name] {
                    announced[name] = (interface, entry.domain, entry.count + 1)
                } else if announced.count < Self.announcedMax {
                    announced[name] = (interface, domain, 1)
                    enqueue(name, attempts: 0)
                }
            } else if let entry = announced[name] {
                guard entry.count <= 1 else {
                    announced[name] = (entry.interface, entry.domain, entry.count - 1)
                    return
                }
                announced.removeValue(forKey: name)
                for resolution in resolving where resolution.name == name { finish(resolution) }
                services.lost(name)
            }
        }

        fileprivate func resolved(_ resolution: Resolution, interface: UInt32, host: String, port: UInt16, txt: ServiceTXT) {
            // The host's address next, in the same slot.
            retire(resolution)
            resolution.port = Int(port)
            resolution.txt = txt
            var ref: DNSServiceRef?
            let error = DNSServiceQueryRecord(
                &ref, 0, interface, host, DNSSD.typeA, DNSSD.classIN, Self.queryReply, Unmanaged.passUnretained(resolution).toOpaque())
            guard error == DNSSD.noError, let ref else { return finish(resolution) }
            resolution.ref = ref
        }

        fileprivate func addressed(_ resolution: Resolution, address: String) {
            finish(resolution)
            guard announced[resolution.name] != nil, let txt = resolution.txt else { return }
            services.found(DiscoveredService(name: resolution.name, address: PeerAddress(host: address, port: resolution.port), txt: txt))
        }

        fileprivate func finish(_ resolution: Resolution) {
            guard let index = resolving.firstIndex(where: { $0 === resolution }) else { return }
            resolving.remove(at: index)
            retire(resolution)
        }

        private func retire(_ resolution: Resolution) {
            if let ref = resolution.ref { retired.append((ref, resolution)) }
            resolution.ref = nil
        }

        private func enqueue(_ name: String, attempts: Int) {
            if waitingHead > 1_024, waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            waiting.append((name, attempts))
        }

        private func nextWaiting() -> (String, Int)? {
            guard waitingHead < waiting.count else { return nil }
            defer { waitingHead += 1 }
            return waiting[waitingHead]
        }

        // MARK: C callbacks

        static let browseReply: DNSServiceBrowseReply = { _, flags, interface, error, name, _, domain, context in
            guard let context else { return }
            let session = Unmanaged<BrowseSession>.fromOpaque(context).takeUnretainedValue()
            session.browsed(
                flags: flags, interface: interface, error: error, name: DNSSD.string(name, bytesMax: DiscoveredService.nameBytesMax),
                domain: DNSSD.string(domain))
        }

        static let resolveReply: DNSServiceResolveReply = { _, _, interface, error, _, host, port, txtLength, txtRecord, context in
            guard let context else { return }
            let resolution = Unmanaged<Resolution>.fromOpaque(context).takeUnretainedValue()
            guard resolution.ref != nil, let session = resolution.session else { return }
            guard error == DNSSD.noError, let host = DNSSD.string(host), Int(txtLength) <= ServiceTXT.bytesMax,
                let txt = ServiceTXT(wire: txtRecord.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? [])
            else { return session.finish(resolution) }
            session.resolved(resolution, interface: interface, host: host, port: UInt16(bigEndian: port), txt: txt)
        }

        static let queryReply: DNSServiceQueryRecordReply = { _, flags, _, error, _, type, _, length, data, _, context in
            guard let context else { return }
            let resolution = Unmanaged<Resolution>.fromOpaque(context).takeUnretainedValue()
            guard resolution.ref != nil, let session = resolution.session else { return }
            guard error == DNSSD.noError, flags & DNSSD.flagAdd != 0, type == DNSSD.typeA, length == 4, let data else { return }
            let bytes = UnsafeRawBufferPointer(start: data, count: 4)
            session.addressed(resolution, address: bytes.map(String.init).joined(separator: "."))
        }
    }

    /// One name being resolved: the reference under way, and what the resolution found so far.
    final class Resolution {
        weak var session: BrowseSession?
        let name: String
        let attempts: Int
        let deadline: ContinuousClock.Instant
        var ref: DNSServiceRef?
        var port = 0
        var txt: ServiceTXT?

        init(session: BrowseSession, name: String, attempts: Int, deadline: ContinuousClock.Instant) {
            self.session = session
            self.name = name
            self.attempts = attempts
            self.deadline = deadline
        }
    }
#endif
