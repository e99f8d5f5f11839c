import Foundation
import HyzerKit
import HyzerSync

/// What an engine syncs with (`HyzerEngine.startSync(_:)`, docs/embedding.md, "Sync"): any mix
/// of a TCP listener, TCP peers, peers over an app's own links, and a shared folder.
public struct SyncPlan: Sendable {
    /// Where to accept peers over TCP (port 0 picks a free one; `SyncStatus.listening` names it).
    public var listen: PeerAddress?
    /// Peers to dial over TCP and keep connected, as `serve --peer` does.
    public var peers: [PeerAddress]
    /// Peers to dial over an app's own transport (`ByteLinkOpener`) and keep connected.
    public var links: [any ByteLinkOpener]
    /// A folder every device of the group sees (Syncthing, Dropbox, a USB stick).
    public var folder: URL?
    /// An S3-compatible bucket prefix every device of the group syncs through
    /// (docs/bucket-sync.md), every `folderInterval` and up to a fifth more at random; in place
    /// of `folder` (a plan syncs one of the two).
    public var bucket: BucketFolder?
    /// Time between folder syncs.
    public var folderInterval: Duration
    /// Whether to find the group's members on the LAN and keep them connected, beside `peers`
    /// (`serve --discover`; docs/discovery.md). Discovered members show in `SyncStatus.discovered`.
    public var discover = false
    /// Whether to advertise the listener on the LAN, so that members that discover find this
    /// device: on by default, it applies only when `listen` is not a loopback address
    /// (`serve --no-advertise` turns it off).
    public var advertise = true
    /// How the LAN is searched and told: `nil` for the system's mDNS responder
    /// (`DNSServiceDiscovery`), or an app's own (`InMemoryDiscovery` in tests).
    public var discovery: (any ServiceDiscovery)?
    /// Whether a device that holds an invitation and no group asks to be admitted first (the
    /// default). When `false`, `startSync` refuses such a device with
    /// `GroupError.awaitingAdmission`, as `hyzer-peer serve` does: a server is started on a
    /// member, and joining is a one-shot sync's business.
    public var joinsFirst = true
    /// Told how every connection, accepted or dialed, ended: a metrics page counts connections
    /// and failures here (`hyzer-peer serve --http`'s `/metrics`). Called on the connection's
    /// task: it must return at once.
    public var connectionEnded: @Sendable (ConnectionOutcome) -> Void = { _ in }
    /// Told what every live connection does while it runs: opened, what its peer holds, closed
    /// (`ConnectionProgress`). `SyncStatus.peers` follows the same events; this is for an app
    /// that keeps figures of its own. Called on the connection's task: it must return at once.
    public var connectionProgress: @Sendable (ConnectionProgress) -> Void = { _ in }

    /// A plan of any of these; by default nothing, which syncs nothing.
    public init(
        listen: PeerAddress? = nil, peers: [PeerAddress] = [], links: [any ByteLinkOpener] = [], folder: URL? = nil,
        folderInterval: Duration = .seconds(10)
    ) {
        self.listen = listen
        self.peers = peers
        self.links = links
        self.folder = folder
        self.folderInterval = folderInterval
    }

    /// The folder the plan syncs on a schedule: the directory `folder`, else `bucket`.
    var sharedFolder: (any SharedFolder)? { folder.map { DirectoryFolder(root: $0) } ?? bucket }
}
