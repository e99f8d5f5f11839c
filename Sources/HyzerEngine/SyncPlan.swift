import Foundation
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
    /// Time between folder syncs.
    public var folderInterval: Duration

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
}
