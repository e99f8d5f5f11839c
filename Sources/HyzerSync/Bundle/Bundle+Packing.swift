import Foundation
import HyzerDomain
import HyzerKit

extension Bundle {
    /// `segments` as signed bundles of at most `bytesMax` bytes each, in order, so a large
    /// delta travels as several bundles a receiver can hold one at a time. A segment cannot be
    /// split here (it must end at a signed op); one larger than `bytesMax` travels alone, and
    /// the engine refuses to send it (`SyncFailure.deltaTooLarge`).
    public static func packed(
        _ segments: [AuthorSegment], groupID: UUID, sender: AuthorID, senderVector: VersionVector, bytesMax: Int,
        signedBy sign: ([UInt8]) -> [UInt8]
    ) -> [[UInt8]] {
        // The header (magic, version, group, sender, vector, count) and the signature.
        let overhead = 5 + 16 + 32 + 10 + senderVector.heads.count * (32 + 10) + 10 + 64
        var bundles: [[UInt8]] = []
        var batch: [AuthorSegment] = []
        var batchBytes = overhead
        func flush() {
            guard !batch.isEmpty else { return }
            bundles.append(Bundle(groupID: groupID, sender: sender, senderVector: senderVector, segments: batch).encoded(signedBy: sign))
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
