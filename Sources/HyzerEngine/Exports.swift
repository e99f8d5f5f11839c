// One import (docs/embedding.md, "One import"): an app writes `import HyzerEngine` and nothing
// else of this package. The façade's signatures and the documents its queries return use the
// types of HyzerDomain (the scoring rules: `StandingsEntry`, `RoundStatus`, `AuthorID`), HyzerKit
// (the documents and the store's errors: `StandingsDocument`, `GroupMember`, `ReplicaError`) and
// HyzerSync (addresses, links, sync reports and failures), so those come with it.
//
// HyzerDomain is re-exported whole. HyzerKit and HyzerSync are re-exported type by type, only
// what the façade speaks in (its signatures, the documents and reports they return, and the
// types those carry, the errors it throws): HyzerKit whole would bring `Replica`, the lower layer
// the engine stands on, whose commands name players, rounds and devices by text; HyzerSync whole
// would bring its `Bundle` (the protocol's delta bundle), which shadows Foundation's `Bundle` in
// every file of an app that imports both.

@_exported import HyzerDomain

@_exported import enum HyzerKit.AdmissionRefusal
@_exported import enum HyzerKit.CardError
@_exported import struct HyzerKit.CardLine
@_exported import struct HyzerKit.Device
@_exported import struct HyzerKit.DiscrepanciesDocument
@_exported import struct HyzerKit.FrozenAuthor
@_exported import enum HyzerKit.GroupError
@_exported import struct HyzerKit.GroupMember
@_exported import enum HyzerKit.IngestError
@_exported import struct HyzerKit.IngestReport
@_exported import enum HyzerKit.InputError
@_exported import enum HyzerKit.InvitationError
@_exported import struct HyzerKit.LateScoreDocument
@_exported import struct HyzerKit.PlayerDocument
@_exported import struct HyzerKit.PlayerHistoryDocument
@_exported import struct HyzerKit.RecordedCard
@_exported import enum HyzerKit.ReplicaError
@_exported import struct HyzerKit.ReplicaIdentity
@_exported import struct HyzerKit.ReplicaStatus
@_exported import struct HyzerKit.RoundDocument
@_exported import enum HyzerKit.RoundError
@_exported import struct HyzerKit.RoundReceipt
@_exported import struct HyzerKit.RoundView
@_exported import struct HyzerKit.StandingsDocument
@_exported import struct HyzerKit.StoreHolder
@_exported import enum HyzerKit.UDiscImportError
@_exported import struct HyzerKit.UDiscImportReport
@_exported import struct HyzerKit.UDiscScorecard
@_exported import struct HyzerKit.VerifyReport
@_exported import struct HyzerKit.VersionVector

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
