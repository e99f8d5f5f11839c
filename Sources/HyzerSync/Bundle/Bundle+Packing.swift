import Foundation
import HyzerDomain
import HyzerKit

extension Replica {
    /// The delta above `above` as connection bundles of at most `bytesMax` bytes (`Bundle.packed`),
    /// with what a connection checks beside them, all from one snapshot (`Replica.deltaRead`):
    /// what a connection sends when its engine asks for a delta (the SwiftNIO shell and the
    /// simulator alike). The bundles' sender vector holds only the entries of the authors they
    /// carry: the peer knows the rest from the hello and `have`s, and the whole vector would
    /// cost 42 bytes an author on every push (docs/sync-protocol.md).
    public func deltaBundles(above: VersionVector, group: GroupMembership, bytesMax: Int) throws -> Delta {
        Delta(
            packing: try deltaRead(above: above, segmentBytesMax: Delta.segmentBytesMax(bytesMax)), from: author, group: group.id,
            bytesMax: bytesMax)
    }

    /// `deltaBundles(above:group:bytesMax:)` read on the writer's connection straight after one of
    /// its commits (`Replica.deltaRead(above:segmentBytesMax:opsMax:after:)`); nil when it reads
    /// nothing there.
    public func deltaBundles(above: VersionVector, group: UUID, bytesMax: Int, opsMax: UInt64, after commit: WriterCommit) throws -> Delta?
    {
        try deltaRead(above: above, segmentBytesMax: Delta.segmentBytesMax(bytesMax), opsMax: opsMax, after: commit).map {
            Delta(packing: $0, from: author, group: group, bytesMax: bytesMax)
        }
    }
}

extension Delta {
    /// The largest segment read for bundles of at most `bytesMax` bytes.
    static func segmentBytesMax(_ bytesMax: Int) -> Int { min(AuthorSegment.preferredBytesMax, bytesMax / 4) }

    /// `read`'s segments packed into connection bundles from `sender` for `group`.
    init(packing read: LogDelta, from sender: AuthorID, group: UUID, bytesMax: Int) {
        let carried = read.vector.restricted(to: Set(read.segments.map(\.author)))
        let bundles = Bundle.packed(read.segments, groupID: group, sender: sender, senderVector: carried, bytesMax: bytesMax)
        self.init(
            bundles: bundles, vector: read.vector, ops: read.segments.reduce(0) { $0 + $1.tails.count }, removed: read.removed,
            releaseDue: read.releaseDue)
    }
}

extension Bundle {
    /// `segments` as connection bundles of at most `bytesMax` bytes each, in order, so a large
    /// delta travels as several bundles a receiver can hold one at a time. A segment cannot be
    /// split here (it must end at a signed op; `Replica.delta(above:)` already cut long runs at
    /// signed ops); one larger than `bytesMax` travels alone, and the engine refuses to send it
    /// (`SyncFailure.deltaTooLarge`): only a run some author wrote unsplit, before segments were
    /// cut, can be that large.
    public static func packed(
        _ segments: [AuthorSegment], groupID: UUID, sender: AuthorID, senderVector: VersionVector, bytesMax: Int
    ) -> [[UInt8]] {
        // The version, the vector and the segment count.
        let overhead = 1 + 10 + senderVector.heads.count * (32 + 10 + 1 + 8 + 10) + 10
        var bundles: [[UInt8]] = []
        var batch: [AuthorSegment] = []
        var batchBytes = overhead
        func flush() {
            guard !batch.isEmpty else { return }
            bundles.append(Bundle(groupID: groupID, sender: sender, senderVector: senderVector, segments: batch).connectionEncoded())
            batch = []
            batchBytes = overhead
        }
        for segment in segments {
            // An upper bound of the segment's encoding: its fixed fields and each tail with its length.
            let bytes = segment.tails.reduce(10 + 32 + 10 + 32 + 10 + 64) { $0 + $1.count + 5 }
            if !batch.isEmpty, batchBytes + bytes > bytesMax { flush() }
            batch.append(segment)
            batchBytes += bytes
        }
        flush()
        return bundles
    }
}
