import HyzerDomain
import HyzerKit

/// A version vector indexed for reconciliation: its entries in key order, each with a 64-bit
/// fingerprint, so that the summary of any `AuthorRange` costs two binary searches
/// (docs/sync-protocol.md, "Reconciliation").
struct VectorSummary {
    let vector: VersionVector
    private let positions: [UInt64]
    private let sorted: [(author: AuthorID, entry: VersionVector.Entry)]
    /// `runningXor[i]`: the XOR of the first `i` entries' fingerprints.
    private let runningXor: [UInt64]

    init(_ vector: VersionVector) {
        self.vector = vector
        let sorted = vector.sortedFullEntries
        self.sorted = sorted
        positions = sorted.map { AuthorRange.position(of: $0.author) }
        var running: [UInt64] = [0]
        running.reserveCapacity(sorted.count + 1)
        for (author, entry) in sorted { running.append(running[running.count - 1] ^ Self.fingerprint(of: author, entry)) }
        runningXor = running
    }

    /// What this vector holds in `range`.
    func summary(of range: AuthorRange) -> RangeSummary {
        let (low, high) = bounds(of: range)
        return RangeSummary(count: high - low, fingerprint: UInt32(truncatingIfNeeded: runningXor[high] ^ runningXor[low]))
    }

    /// The whole vector's 64-bit fingerprint: the XOR of every entry's.
    var wholeFingerprint: UInt64 { runningXor[runningXor.count - 1] }

    /// `vector`'s 64-bit fingerprint, as `wholeFingerprint` gives it, without indexing it.
    static func wholeFingerprint(of vector: VersionVector) -> UInt64 {
        vector.entries.reduce(0) { $0 ^ fingerprint(of: $1.key, $1.value) }
    }

    /// The entries in `range`.
    func entries(in range: AuthorRange) -> VersionVector {
        let (low, high) = bounds(of: range)
        return VersionVector(entries: Dictionary(uniqueKeysWithValues: sorted[low..<high].lazy.map { ($0.author, $0.entry) }))
    }

    /// The authors in `range`.
    func authors(in range: AuthorRange) -> some Collection<AuthorID> {
        let (low, high) = bounds(of: range)
        return sorted[low..<high].lazy.map(\.author)
    }

    /// The indices of the first entry in `range` and of the first after it.
    private func bounds(of range: AuthorRange) -> (Int, Int) {
        (firstIndex { $0 >= range.lowerBound }, firstIndex { $0 > range.upperBound })
    }

    /// The first index whose position satisfies `isAtOrAbove` (monotone over the sorted positions).
    private func firstIndex(where isAtOrAbove: (UInt64) -> Bool) -> Int {
        var (low, high) = (0, positions.count)
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAbove(positions[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// An entry's fingerprint: 64-bit FNV-1a over the author, the sequence, the hash prefix and
    /// the fork point, then mixed (SplitMix64's finalizer) so that XORs of many stay spread. It is
    /// no security device: a peer that lies about its summaries only gets fewer ops.
    static func fingerprint(of author: AuthorID, _ entry: VersionVector.Entry) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        func mix(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { mix(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        for byte in author.bytes { mix(byte) }
        mix(entry.sequence)
        mix(UInt8(entry.hashPrefix == nil ? 0 : 1) | UInt8(entry.frozenAt == nil ? 0 : 2))
        for byte in entry.hashPrefix ?? [] { mix(byte) }
        mix(entry.frozenAt ?? 0)
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
