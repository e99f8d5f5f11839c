import Synchronization

/// A LAN inside one process (docs/discovery.md, "Testing"): every browse started on it sees
/// what is advertised on it, at `host` and the advertised port, at once. Tests and simulations
/// use it in place of the system's responder; `announce(_:)` and `withdraw(_:)` play services
/// advertised by others (a flood, a copied tag), and `isResponding` a responder that is down.
public final class InMemoryDiscovery: ServiceDiscovery {
    /// The address every advertised service is found at.
    public let host: String
    private let state = Mutex(State())

    private struct State {
        var responding = true
        /// Each service with the order it was announced in: a browse started later finds them in that order.
        var services: [String: (service: DiscoveredService, order: Int)] = [:]
        var announced = 0
        var browsers: [Int: DiscoveredServices] = [:]
        var nextID = 0
    }

    /// A LAN on which services are found at `host`.
    public init(host: String = "127.0.0.1") {
        self.host = host
    }

    /// Whether the responder answers: when false, `advertise` and `browse` throw
    /// `DiscoveryError.responderUnavailable`.
    public var isResponding: Bool {
        get { state.withLock { $0.responding } }
        set { state.withLock { $0.responding = newValue } }
    }

    /// Advertises `name` at `host`:`port` to every browse, now and later, until stopped.
    public func advertise(name: String, port: Int, txt: ServiceTXT) throws(DiscoveryError) -> any DiscoveryActivity {
        try announce(DiscoveredService(name: name, address: PeerAddress(host: host, port: port), txt: txt))
        return Activity { [weak self] in self?.withdraw(name) }
    }

    /// Fills `services` with what is advertised, now and until stopped.
    public func browse(into services: DiscoveredServices) throws(DiscoveryError) -> any DiscoveryActivity {
        let (id, present) = try state.withLock { state throws(DiscoveryError) in
            guard state.responding else { throw DiscoveryError.responderUnavailable(-65537) }
            state.nextID += 1
            state.browsers[state.nextID] = services
            return (state.nextID, state.services.values.sorted { $0.order < $1.order }.map(\.service))
        }
        for service in present { services.found(service) }
        return Activity { [weak self] in _ = self?.state.withLock { $0.browsers.removeValue(forKey: id) } }
    }

    /// A service appears on the LAN, as anyone may advertise one.
    public func announce(_ service: DiscoveredService) throws(DiscoveryError) {
        let browsers = try state.withLock { state throws(DiscoveryError) in
            guard state.responding else { throw DiscoveryError.responderUnavailable(-65537) }
            state.announced += 1
            state.services[service.name] = (service, state.services[service.name]?.order ?? state.announced)
            return Array(state.browsers.values)
        }
        for browser in browsers { browser.found(service) }
    }

    /// The service named `name` leaves the LAN.
    public func withdraw(_ name: String) {
        let browsers = state.withLock { state in
            state.services.removeValue(forKey: name) == nil ? [] : Array(state.browsers.values)
        }
        for browser in browsers { browser.lost(name) }
    }

    /// An advertisement or browse on the in-memory LAN.
    private final class Activity: DiscoveryActivity {
        private let end: Mutex<(@Sendable () -> Void)?>
        init(_ end: @escaping @Sendable () -> Void) { self.end = Mutex(end) }
        func stop() {
            end.withLock { end in
                defer { end = nil }
                return end
            }?()
        }
    }
}
