/// The seam between sync and the LAN's service discovery (docs/discovery.md): advertising this
/// device's listener and browsing for others. `DNSServiceDiscovery` speaks to the system's mDNS
/// responder (avahi on Linux, mDNSResponder on Apple platforms); `InMemoryDiscovery` is a LAN in
/// one process, for tests and simulations.
public protocol ServiceDiscovery: Sendable {
    /// Advertises a service named `name` on `port` with `txt` until the returned activity is
    /// stopped. Throws `DiscoveryError` when the responder cannot be reached or refuses it.
    func advertise(name: String, port: Int, txt: ServiceTXT) throws(DiscoveryError) -> any DiscoveryActivity

    /// Browses for services and keeps `services` up to date (found, resolved, lost) until the
    /// returned activity is stopped. Throws `DiscoveryError` when the responder cannot be reached.
    func browse(into services: DiscoveredServices) throws(DiscoveryError) -> any DiscoveryActivity
}

/// An advertisement or a browse that runs until stopped.
public protocol DiscoveryActivity: Sendable {
    /// Ends it: an advertisement is withdrawn, a browse stops updating its services. Stopping
    /// twice does nothing.
    func stop()
}

/// Why discovery could not start.
public enum DiscoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The mDNS responder did not answer (avahi-daemon not running, or no D-Bus), with its error code.
    case responderUnavailable(Int32)
    /// The responder refused the request, with its error code.
    case refused(Int32)
    /// This build has no mDNS responder to speak to.
    case unsupported

    /// A sentence saying what failed and what to do.
    public var description: String {
        switch self {
        case .responderUnavailable(let code):
            "the mDNS responder is not running (error \(code)); start avahi-daemon (Linux) to find peers on the LAN"
        case .refused(let code): "the mDNS responder refused the request (error \(code))"
        case .unsupported: "this build has no mDNS responder to speak to"
        }
    }
}
