// One import (docs/embedding.md, "One import"): an app writes `import HyzerEngine` and nothing
// else of this package. The façade's signatures and the documents its queries return use the
// types of HyzerDomain (the scoring rules: `StandingsEntry`, `RoundStatus`, `AuthorID`), HyzerKit
// (the documents and the store's errors: `StandingsDocument`, `GroupMember`, `ReplicaError`) and
// HyzerSync (addresses, links, sync reports and failures), so those come with it.
//
// HyzerDomain and HyzerKit are re-exported whole. HyzerSync is re-exported type by type, only
// what the façade speaks in: as a whole it would bring its `Bundle` (the protocol's delta
// bundle), which shadows Foundation's `Bundle` in every file of an app that imports both.

@_exported import HyzerDomain
@_exported import HyzerKit

@_exported import enum HyzerSync.BundleError
@_exported import protocol HyzerSync.ByteLink
@_exported import protocol HyzerSync.ByteLinkOpener
@_exported import struct HyzerSync.ConnectionOutcome
@_exported import enum HyzerSync.ConnectionProgress
@_exported import struct HyzerSync.DialFailure
@_exported import struct HyzerSync.FolderError
@_exported import struct HyzerSync.FolderSyncReport
@_exported import enum HyzerSync.HandshakeError
@_exported import struct HyzerSync.InMemoryLink
@_exported import enum HyzerSync.InMemoryLinkError
@_exported import enum HyzerSync.ListenerBusy
@_exported import struct HyzerSync.PeerAddress
@_exported import struct HyzerSync.PeerLag
@_exported import struct HyzerSync.PeerLags
@_exported import enum HyzerSync.PeerSyncError
@_exported import enum HyzerSync.SyncFailure
@_exported import class HyzerSync.TCPLink
