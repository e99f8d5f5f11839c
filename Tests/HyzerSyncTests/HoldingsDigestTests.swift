import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// docs/sync-protocol.md, "Live connections heal": the digest a live heartbeat carries is the
/// XOR of each entry's hash of its author's four big-endian words and its sequence.
@Suite struct HoldingsDigestTests {
    static let first = AuthorID(bytes: [UInt8](repeating: 1, count: 32))!
    static let second = AuthorID(bytes: [UInt8](repeating: 2, count: 32))!

    /// The test vector of docs/sync-protocol.md, computed there by an independent implementation.
    @Test func theTestVector() {
        #expect(HoldingsDigest.of(VersionVector([Self.first: 3])) == 0x2654_aa8d_ef9a_5f55)
        #expect(HoldingsDigest.of(VersionVector([Self.first: 3, Self.second: 7])) == 0x38f3_a855_60a7_e4ad)
        #expect(HoldingsDigest.of(VersionVector()) == 0)
    }

    /// Any order of building the same vector digests alike; a zero sequence counts as absent; any
    /// changed sequence changes the digest.
    @Test func theDigestIsOfTheSequencesAlone() {
        var forwards = VersionVector()
        var backwards = VersionVector()
        let authors = (0..<200).map { AuthorID(bytes: [UInt8(truncatingIfNeeded: $0)] + [UInt8](repeating: 9, count: 31))! }
        for (index, author) in authors.enumerated() { forwards[author] = UInt64(index + 1) }
        for (index, author) in authors.enumerated().reversed() { backwards[author] = UInt64(index + 1) }
        #expect(HoldingsDigest.of(forwards) == HoldingsDigest.of(backwards))
        var withZero = forwards
        withZero[Self.first] = 0
        #expect(HoldingsDigest.of(withZero) == HoldingsDigest.of(forwards))
        for author in authors.prefix(20) {
            var changed = forwards
            changed[author] = forwards[author] + 1
            #expect(HoldingsDigest.of(changed) != HoldingsDigest.of(forwards))
        }
    }
}
