import Foundation
import HyzerDomain

/// The organizer's removal of a device as its own log holds it: a one-op author segment, the
/// removal op (kind 17) with the organizer's signature. A member that refuses a removed device's
/// handshake shows it to that device (docs/sync-protocol.md, "Removed devices"), which checks it
/// against what it already holds, the group's id (which names the organizer) and its own keys,
/// and then stops dialing: nobody without the organizer's key can make one, and a removal is
/// never undone, so a recorded one replayed tells the device nothing false.
public struct RemovalProof: Hashable, Sendable {
    /// The most bytes a proof takes: a removal's tail is at most 54 bytes, its segment about 200.
    public static let bytesMax = 320

    /// The removal op, alone, signed.
    public let segment: AuthorSegment
    /// The device the op removes.
    public let device: AuthorID

    /// The removal op `segment` holds, when it is one of group `group`'s organizer, signed by it,
    /// removing another device; `nil` for anything else.
    public init?(_ segment: AuthorSegment, group: UUID) {
        guard segment.tails.count == 1, GroupMembership.isOrganizer(segment.author, of: group),
            let op = try? segment.verifiedOps().first, case .success(.memberRemoved(let device, _)) = op.payload(),
            device != segment.author
        else { return nil }
        self.segment = segment
        self.device = device
    }

    /// The proof in `bytes` (a segment's encoding, at most `bytesMax`) of group `group`; `nil`
    /// for any other bytes.
    public init?(decoding bytes: [UInt8], group: UUID) {
        guard bytes.count <= Self.bytesMax, let segment = try? AuthorSegment(decoding: bytes) else { return nil }
        self.init(segment, group: group)
    }

    /// The segment's encoding: what a member sends.
    public var bytes: [UInt8] { segment.encoded() }

    /// Whether the removal removes `device`, whose store continued from the keys of `lineage`
    /// (its own successions, nearest first): the op names it or one of them.
    public func removes(_ device: AuthorID, lineage: [SuccessionProof]) -> Bool {
        self.device == device || lineage.contains { $0.predecessor == self.device }
    }
}
