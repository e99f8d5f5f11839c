import HyzerDomain
import HyzerKit

/// A short digest of a version vector's sequences (docs/sync-protocol.md, "Live connections
/// heal"): what a live heartbeat carries, so that the peer can tell, without the whole vector,
/// whether the sender's belief of what it holds is right.
///
/// The XOR, over the vector's entries (a vector holds no zero sequence), of a 64-bit hash of the
/// author and the sequence (`entry`). It needs no sorting and takes five multiplications an
/// entry, so a crowd's connections digest a 1,000-author vector in about ten microseconds
/// (docs/performance.md, "A crowd").
/// It is no security device: a peer that forges one only makes the other side send it a vector.
/// Hash prefixes and fork points are left out: a belief that differs in them alone costs no
/// exchange, and the delta above a vector finds fork evidence as before.
public enum HoldingsDigest {
    /// The digest of `vector`'s sequences.
    public static func of(_ vector: VersionVector) -> UInt64 {
        vector.entries.reduce(0) { $0 ^ entry($1.key, $1.value.sequence) }
    }

    /// One entry's hash: its author's four big-endian 64-bit words and its sequence, each
    /// XORed in, multiplied by the golden ratio's 64 bits and folded (`h ^= h >> 29`).
    static func entry(_ author: AuthorID, _ sequence: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
            hash ^= hash >> 29
        }
        author.bytes.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: AuthorID.byteCount, by: 8) {
                mix(UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
        }
        mix(sequence)
        return hash
    }
}
