import HyzerDomain
import HyzerKit

/// A short digest of a version vector's sequences (docs/sync-protocol.md, "Live connections
/// heal"): what a live heartbeat carries, so that the peer can tell, without the whole vector,
/// whether the sender's belief of what it holds is right.
///
/// The XOR, over the vector's entries (a vector holds no zero sequence), of 64-bit FNV-1a over
/// the author's 32 bytes and the sequence's 8 big-endian bytes. It needs no sorting, so a crowd's connections
/// digest a 1,000-author vector in a few tens of microseconds (docs/performance.md, "A crowd").
/// It is no security device: a peer that forges one only makes the other side send it a vector.
/// Hash prefixes and fork points are left out: a belief that differs in them alone costs no
/// exchange, and the delta above a vector finds fork evidence as before.
public enum HoldingsDigest {
    /// The digest of `vector`'s sequences.
    public static func of(_ vector: VersionVector) -> UInt64 {
        vector.entries.reduce(0) { $0 ^ entry($1.key, $1.value.sequence) }
    }

    /// One entry's 64-bit FNV-1a.
    static func entry(_ author: AuthorID, _ sequence: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        for byte in author.bytes { mix(byte) }
        for shift in stride(from: 56, through: 0, by: -8) { mix(UInt8(truncatingIfNeeded: sequence >> UInt64(shift))) }
        return hash
    }
}
