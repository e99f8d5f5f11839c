import HyzerDomain

/// For each author, the highest sequence number held with no gap below it, the first bytes of
/// that op's hash, and whether the holder's evidence shows the author forked (docs/store.md).
///
/// The hash makes two equal-length branches of one author visible; the fork state lets a peer
/// see that this replica already holds (or still lacks) a fork's proof. Vectors built from
/// sequence numbers alone (version 1 bundles, a transport's bookkeeping) carry neither: their
/// entries are trusted by sequence number only.
public struct VersionVector: Hashable, Sendable {
    /// What a replica holds of one author's log.
    public struct Entry: Hashable, Sendable {
        /// Bytes of the head hash a vector carries.
        public static let hashPrefixBytes = 8

        /// The highest sequence number held with no gap below it.
        public var sequence: UInt64
        /// The first `hashPrefixBytes` of the hash of op `sequence`; `nil` when unknown.
        public var hashPrefix: [UInt8]?
        /// The fork point: the lowest sequence at which the holder's evidence shows two
        /// different authenticated ops (or the first op whose stamp does not increase). No op of
        /// the author at or above it counts in views. `nil` while the author is live.
        public var frozenAt: UInt64?

        /// An entry; `hashPrefix` is cut to ``hashPrefixBytes``.
        public init(sequence: UInt64, hashPrefix: [UInt8]? = nil, frozenAt: UInt64? = nil) {
            self.sequence = sequence
            self.hashPrefix = hashPrefix.map { $0.count <= Self.hashPrefixBytes ? $0 : Array($0.prefix(Self.hashPrefixBytes)) }
            self.frozenAt = frozenAt
        }

        /// Whether this entry shows at least what `other` shows: a frozen entry knows more than
        /// a live one, a lower fork point more than a higher one, and among live entries a
        /// higher sequence more than a lower one; equal live sequences with different known
        /// hashes show different things.
        public func covers(_ other: Entry) -> Bool {
            switch (frozenAt, other.frozenAt) {
            case (let mine?, let theirs?): return mine <= theirs
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil):
                if sequence != other.sequence { return sequence > other.sequence }
                guard let mine = hashPrefix, let theirs = other.hashPrefix else { return true }
                return mine == theirs
            }
        }
    }

    /// Each author's entry; authors of whom nothing is held have none.
    public private(set) var entries: [AuthorID: Entry]

    /// A vector of sequence numbers alone (no hash, no fork state); zero heads are dropped.
    public init(_ heads: [AuthorID: UInt64] = [:]) {
        entries = heads.filter { $0.value > 0 }.mapValues { Entry(sequence: $0) }
    }

    /// A vector of `entries`; entries of sequence 0 are dropped.
    public init(entries: [AuthorID: Entry]) {
        // Filtering rebuilds the dictionary, hashing every author again: only when needed.
        self.entries = entries.values.allSatisfy { $0.sequence > 0 } ? entries : entries.filter { $0.value.sequence > 0 }
    }

    /// Sequence numbers alone.
    public var heads: [AuthorID: UInt64] { entries.mapValues(\.sequence) }

    /// The sequence number held of `author`. Setting it drops what the entry knew of the hash
    /// and the fork state: the entry is then trusted by its sequence number only.
    public subscript(author: AuthorID) -> UInt64 {
        get { entries[author]?.sequence ?? 0 }
        set { entries[author] = newValue == 0 ? nil : Entry(sequence: newValue) }
    }

    /// The whole entry of `author`, if any.
    public func entry(_ author: AuthorID) -> Entry? { entries[author] }

    /// Sets `author`'s whole entry; an entry of sequence 0 (or nil) removes the author.
    mutating func set(_ entry: Entry?, of author: AuthorID) {
        entries[author] = entry.flatMap { $0.sequence > 0 ? $0 : nil }
    }

    /// Authors in byte order, for deterministic output.
    public var sortedEntries: [(author: AuthorID, sequence: UInt64)] {
        entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sequence) }
    }

    /// Whole entries in author byte order.
    public var sortedFullEntries: [(author: AuthorID, entry: Entry)] {
        entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Takes `other`'s entry wherever it shows more (see `Entry.covers`); where neither covers
    /// the other (two branches of equal length), `other`'s, the newer news, wins. Returns
    /// whether any entry changed.
    @discardableResult
    public mutating func formMaximum(_ other: VersionVector) -> Bool {
        var changed = false
        for (author, theirs) in other.entries where !(entries[author]?.covers(theirs) ?? false) {
            entries[author] = theirs
            changed = true
        }
        return changed
    }

    /// The entries of this vector that are not exactly `previous`'s: what a peer told `previous`
    /// needs to hear to know this vector (`apply(changes:)`). It names no entry to remove: a
    /// store's vector never loses one while a connection lasts.
    public func changes(since previous: VersionVector) -> VersionVector {
        VersionVector(entries: entries.filter { previous.entries[$0.key] != $0.value })
    }

    /// Takes each entry of `changes` as it is, whether or not it shows more: the inverse of
    /// `changes(since:)`.
    public mutating func apply(changes: VersionVector) {
        entries.merge(changes.entries) { _, new in new }
    }

    /// The entries of `authors` only.
    public func restricted(to authors: Set<AuthorID>) -> VersionVector {
        VersionVector(entries: entries.filter { authors.contains($0.key) })
    }

    /// Whether this vector holds everything `other` holds, hashes and fork states included.
    public func covers(_ other: VersionVector) -> Bool {
        other.entries.allSatisfy { author, theirs in entries[author]?.covers(theirs) ?? false }
    }

    /// Drops the entry of every author some vector of `members` lacks evidence of that `local`
    /// holds: a fork it has not seen (it is live, or frozen higher, where `local` is frozen), or
    /// another op at the sequence `local` holds. A delta above the result then carries that
    /// author's whole log and, when frozen, the proof of the fork, which serves every such member
    /// at once; an author a member knows more of (frozen where `local` is live, or lower) keeps
    /// its entry. The result does not depend on the order of `members`. Used by transports that
    /// compute what to send by sequence numbers alone (folder sync).
    public mutating func formEvidenceNeeds(of members: some Collection<VersionVector>, local: VersionVector) {
        for member in members {
            for (author, theirs) in member.entries {
                guard let mine = local.entries[author] else { continue }
                let lacksFork =
                    if let ours = mine.frozenAt { theirs.frozenAt.map { $0 > ours } ?? true } else { false }
                let otherBranch =
                    mine.frozenAt == nil && theirs.frozenAt == nil && mine.sequence == theirs.sequence && theirs.hashPrefix != nil
                    && mine.hashPrefix != theirs.hashPrefix
                if lacksFork || otherBranch { entries[author] = nil }
            }
        }
    }
}
