import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// A hostile member (docs/security.md, "Forks, clocks and junk"): a phone that holds the group
/// secret and its own key, plays its part honestly, and once per live connection sends a crafted
/// bundle after its delta. Everything it crafts comes from the seed.
extension Simulation {
    /// What a hostile member sends besides an honest delta.
    enum HostileBundle: Int, CaseIterable {
        /// Many made-up identities with one op each, above a gap: kept pending, within the caps.
        case junkIdentities
        /// Made-up identities stamped at or beyond 2^63 ms: held, never applied.
        case farFutureStamps
        /// Sequence numbers beyond 2^63 − 1, and a segment whose last one passes 2^64: the
        /// bundle does not decode, the connection is refused.
        case outOfRangeSequences
        /// A bundle of junk cut short: it does not decode, the connection is refused.
        case cutShort
    }

    /// The crafted bundle the hostile phone at `end` adds to its delta, once per connection,
    /// until the heal; nil for an honest device.
    func hostileBundle(_ connection: SimulatedConnection, _ end: Int, vector: VersionVector) -> [UInt8]? {
        let index = connection.ends[end].device
        guard index == hostilePhone, !connection.hostileBundleSent, !schedule.healed else { return nil }
        connection.hostileBundleSent = true
        let kind = HostileBundle.allCases[random.below(HostileBundle.allCases.count)]
        let segments: [AuthorSegment]
        switch kind {
        case .junkIdentities, .cutShort:
            segments = (0..<random.integer(in: 20...200)).map { _ in
                junkSegment(sequence: UInt64(random.integer(in: 2...1_000)), stamp: world.now)
            }
        case .farFutureStamps:
            let beyond = UInt64(Int64.max)
            segments = [beyond, beyond + UInt64(random.below(1_000_000_000)), .max].map { junkSegment(sequence: 1, stamp: $0) }
        case .outOfRangeSequences:
            let op = junkSegment(sequence: 2, stamp: world.now)
            segments = [
                junkSegment(sequence: UInt64(Int64.max) + 1 + UInt64(random.below(1_000)), stamp: world.now),
                junkSegment(sequence: .max, stamp: world.now),
                AuthorSegment(
                    author: op.author, firstSequence: .max, previousHash: op.previousHash, tails: [op.tails[0], op.tails[0]],
                    lastSignature: op.lastSignature),
            ]
        }
        let replica = devices[index].running
        var bytes = HyzerSync.Bundle(groupID: group.id, sender: devices[index].author, senderVector: vector, segments: segments)
            .encoded { replica.signature(of: $0) }
        if kind == .cutShort { bytes = Array(bytes.prefix(random.integer(in: 1...bytes.count - 1))) }
        coverage.count(.hostileBundlesSent)
        record(
            "\(devices[index].name) sends a hostile bundle (\(kind)) of \(segments.count) segments, \(bytes.count) bytes on #\(connection.id)"
        )
        return bytes
    }

    /// One op of a made-up identity at `sequence`, stamped `stamp`, signed by a fresh key.
    private func junkSegment(sequence: UInt64, stamp: UInt64) -> AuthorSegment {
        let keys = SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes))
        let clock = HLCTimestamp(physicalMilliseconds: stamp)
        let op = SignedOp(
            author: AuthorID(bytes: keys.publicKey)!, sequence: sequence,
            previousHash: sequence == 1 ? SignedOp.noPreviousHash : random.bytes(32),
            tail: SignedOp.tail(clock: clock, payloadBytes: OpPayload.deviceRegistered(name: "junk", kind: .phone).encoded()),
            signature: nil)
        return AuthorSegment(ops: [op.with(signature: keys.sign(SignedOp.signedMessage(hash: op.hash)))])
    }

    /// Whether `author` is one of the simulated devices (every honest op has such an author).
    func isDeviceAuthor(_ author: AuthorID) -> Bool {
        devices.contains { $0.author == author } || registry.knows(author)
    }

    /// Junk stays bounded: a replica keeps at most 1,000 segments pending and 1,000 held
    /// (docs/security.md, "Forks, clocks and junk"), honest ones included. The caps count
    /// segments, not ops: overlapping honest segments count their ops twice in `pendingOps`.
    func checkJunkBounded(_ index: Int) throws {
        let aside = try devices[index].running.segmentsAside()
        for (kept, count) in [("pending", aside.pending), ("held", aside.held)] where count > Self.junkSegmentsMax {
            throw fail(.safety, "\(devices[index].name) keeps \(count) segments \(kept), above the cap of \(Self.junkSegmentsMax)")
        }
    }

    /// The cap on segments kept pending, and on segments held (docs/security.md).
    static let junkSegmentsMax = 1_000
}
