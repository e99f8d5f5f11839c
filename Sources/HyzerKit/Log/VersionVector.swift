import HyzerDomain

/// For each author, the highest sequence number held with no gap below it.
public struct VersionVector: Hashable, Sendable {
    public var heads: [AuthorID: UInt64]

    public init(_ heads: [AuthorID: UInt64] = [:]) {
        self.heads = heads.filter { $0.value > 0 }
    }

    public subscript(author: AuthorID) -> UInt64 {
        get { heads[author] ?? 0 }
        set { heads[author] = newValue == 0 ? nil : newValue }
    }

    /// Authors in byte order, for deterministic output.
    public var sortedEntries: [(author: AuthorID, sequence: UInt64)] {
        heads.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Raises each entry to `other`'s where `other` holds more.
    public mutating func formMaximum(_ other: VersionVector) {
        for (author, sequence) in other.heads where sequence > self[author] { self[author] = sequence }
    }

    /// Whether this vector holds everything `other` holds.
    public func covers(_ other: VersionVector) -> Bool {
        other.heads.allSatisfy { self[$0.key] >= $0.value }
    }
}
