import Foundation
import HyzerDomain
import HyzerKit

/// A delta as `Replica.deltaBundles` reads it, from one snapshot of the store.
public struct Delta: Sendable {
    /// The connection bundles.
    public let bundles: [[UInt8]]
    /// The store's vector: what the bundles bring the peer up to.
    public let vector: VersionVector
    /// How many ops the bundles carry.
    public let ops: Int
    /// The devices removed from the group: a connection sends none of it to a removed peer.
    public let removed: Set<AuthorID>
    /// Whether a held segment's time had come (`LogDelta.releaseDue`).
    public let releaseDue: Bool

    /// A delta of `bundles` carrying `ops` ops up to `vector`, beside the group's `removed` devices.
    public init(bundles: [[UInt8]], vector: VersionVector, ops: Int, removed: Set<AuthorID> = [], releaseDue: Bool = false) {
        self.bundles = bundles
        self.vector = vector
        self.ops = ops
        self.removed = removed
        self.releaseDue = releaseDue
    }
}

/// What a connection asks of the store for a delta: the ops above `above`, in bundles of at
/// most `bytesMax` bytes for group `group`.
public struct DeltaRequest: Hashable, Sendable {
    /// The vector the peer holds: the delta is every op above it.
    public let above: VersionVector
    /// The group whose key signs and seals the bundles.
    public let group: UUID
    /// The largest bundle, in bytes.
    public let bytesMax: Int

    /// A request for the ops above `above`, in bundles of at most `bytesMax` bytes for `group`.
    public init(above: VersionVector, group: UUID, bytesMax: Int) {
        assert(bytesMax > 0, "a bundle holds at least one byte")
        self.above = above
        self.group = group
        self.bytesMax = bytesMax
    }

    /// The request of a peer that took `delta`, read for this request: the same, above the
    /// vector the delta brought it up to.
    func next(_ delta: Delta) -> DeltaRequest {
        DeltaRequest(above: delta.vector, group: group, bytesMax: bytesMax)
    }

    /// Hashes the vector's size, not its entries: hashing every author of every connection's
    /// request cost a `serve` more than the delta it shares. Requests are compared whole, and
    /// comparing two vectors that share storage (`SyncSession.deltaSent(upTo:bundles:)`) costs
    /// nothing; at most `ConnectionSignals.sharedDeltasMax` are kept, so requests of one size
    /// cost at most that many comparisons.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(group)
        hasher.combine(bytesMax)
        hasher.combine(above.entries.count)
    }
}

/// The one seam through which a process's connections share the store reads that answer a
/// change (docs/performance.md, "A tournament"): after a change, the first connection reads the
/// vector and the delta its peer lacks, and the others whose peers hold the same thing share
/// them. `serve` shares through `ConnectionSignals`; the simulator through a device's own table.
public protocol DeltaSharing: AnyObject {
    /// The store's vector after the latest change: `read` runs unless another connection read it.
    func vectorAfterLatestChange(_ read: () throws -> VersionVector) throws -> VersionVector
    /// The delta for `request` after the latest change: `read` runs unless another connection read it.
    func deltaAfterLatestChange(_ request: DeltaRequest, _ read: () throws -> Delta) throws -> Delta
    /// The delta for `request` after the latest change if another connection (or the writer) read
    /// it already; nil, reading nothing, if not.
    func sharedDelta(_ request: DeltaRequest) -> Delta?
}
