import HyzerKit

/// A browse of the LAN for the peers a device can sync with, or be admitted by
/// (`sync --discover`, and joining with `SyncPlan.discover`): the services whose record shows
/// its group's tag, or a join tag of the invitation it holds. Runs until stopped.
public final class DiscoveryScan: Sendable {
    private let services: DiscoveredServices
    private let browse: any DiscoveryActivity

    /// Starts browsing with `discovery`; throws `DiscoveryError` when the responder cannot be reached.
    public init(_ discovery: any ServiceDiscovery) throws(DiscoveryError) {
        services = DiscoveredServices()
        browse = try discovery.browse(into: services)
    }

    deinit { browse.stop() }

    /// Stops browsing.
    public func stop() { browse.stop() }

    /// Rings at once, then after each change of what the browse found.
    public func changes() -> AsyncStream<Void> { services.changes() }

    /// The addresses of the services tagged for `group` now (with the secret of any epoch it
    /// holds): members, or strangers with a copied record, whom the handshake refuses.
    public func members(of group: GroupMembership) -> [PeerAddress] {
        services.all.filter { DiscoveryRecord($0.txt)?.isTagged(for: group) == true }.map(\.address)
    }

    /// The addresses of the services that say they admit with `invitation` now.
    public func admitting(_ invitation: Invitation) -> [PeerAddress] {
        services.all.filter { DiscoveryRecord($0.txt)?.admits(invitation) == true }.map(\.address)
    }
}
