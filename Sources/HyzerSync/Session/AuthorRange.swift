import HyzerDomain
import HyzerKit

/// A range of the author space, for reconciling two version vectors (docs/sync-protocol.md,
/// "Reconciliation"): the authors whose key begins with the range's `depth` nibbles. The root
/// holds every author; a range splits into 16 children by its next nibble, down to `depthMax`.
/// Keys are public keys, so authors spread evenly over the ranges of each depth.
public struct AuthorRange: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The children a range splits into.
    public static let fanout = 16
    /// The deepest range: 16 nibbles, a key's first 8 bytes.
    public static let depthMax: UInt8 = 16
    /// Every author.
    public static let root = AuthorRange(uncheckedDepth: 0, prefix: 0)

    /// How many leading nibbles of a key the range fixes.
    public let depth: UInt8
    /// The fixed nibbles, at the top of a key's first 8 bytes read big-endian; the rest zero.
    public let prefix: UInt64

    /// The range at `depth` with `prefix`; `nil` when the depth is above `depthMax` or the prefix
    /// has bits below its depth.
    public init?(depth: UInt8, prefix: UInt64) {
        guard depth <= Self.depthMax, prefix & Self.freeBits(depth) == 0 else { return nil }
        self.init(uncheckedDepth: depth, prefix: prefix)
    }

    private init(uncheckedDepth depth: UInt8, prefix: UInt64) {
        self.depth = depth
        self.prefix = prefix
    }

    /// The bits of a key's first 8 bytes a range at `depth` leaves free.
    private static func freeBits(_ depth: UInt8) -> UInt64 { UInt64.max >> (4 * UInt64(depth)) }

    /// A key's first 8 bytes, big-endian: where an author falls among the ranges.
    public static func position(of author: AuthorID) -> UInt64 {
        author.bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The lowest position in the range.
    public var lowerBound: UInt64 { prefix }
    /// The highest position in the range.
    public var upperBound: UInt64 { prefix | Self.freeBits(depth) }

    /// Whether `author` falls in the range.
    public func contains(_ author: AuthorID) -> Bool {
        let position = Self.position(of: author)
        return position >= lowerBound && position <= upperBound
    }

    /// Whether the range can split (it is above `depthMax`).
    public var canSplit: Bool { depth < Self.depthMax }

    /// The 16 children, in order; none at `depthMax`.
    public var children: [AuthorRange] {
        guard canSplit else { return [] }
        let shift = 60 - 4 * UInt64(depth)
        return (0..<UInt64(Self.fanout)).map { AuthorRange(uncheckedDepth: depth + 1, prefix: prefix | $0 << shift) }
    }

    /// Ranges in key order, a parent before its children.
    public static func < (lhs: AuthorRange, rhs: AuthorRange) -> Bool {
        (lhs.prefix, lhs.depth) < (rhs.prefix, rhs.depth)
    }

    /// The fixed nibbles in hexadecimal (`*` for the root).
    public var description: String {
        guard depth > 0 else { return "*" }
        let hex = String(prefix, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        return String(padded.prefix(Int(depth))) + "*"
    }

    /// Writes the depth, then the fixed nibbles in `(depth + 1) / 2` bytes.
    func write(into writer: inout ByteWriter) {
        writer.write(depth)
        for index in 0..<(Int(depth) + 1) / 2 { writer.write(UInt8(truncatingIfNeeded: prefix >> (56 - 8 * UInt64(index)))) }
    }

    /// Reads what `write` wrote; throws for a depth above `depthMax` or a set bit below it.
    static func read(_ reader: inout ByteReader) throws(ByteDecodingError) -> AuthorRange {
        let depth = try reader.readByte()
        guard depth <= depthMax else { throw .outOfRange(field: "range depth") }
        var prefix: UInt64 = 0
        for (index, byte) in try reader.readRaw((Int(depth) + 1) / 2).enumerated() {
            prefix |= UInt64(byte) << (56 - 8 * UInt64(index))
        }
        guard let range = AuthorRange(depth: depth, prefix: prefix) else { throw .outOfRange(field: "range prefix") }
        return range
    }
}

/// What one side holds in a range: how many vector entries, and their 32-bit fingerprint (zero
/// when there are none; docs/sync-protocol.md, "Reconciliation"). Two ranges that differ have
/// one chance in 2³² of summaries that agree; the hello's whole-vector fingerprint catches it.
public struct RangeSummary: Hashable, Sendable {
    /// Entries in the range.
    public let count: Int
    /// The low 32 bits of the XOR of the entries' fingerprints (`VectorSummary.fingerprint(of:_:)`).
    public let fingerprint: UInt32

    /// A summary of `count` entries with `fingerprint` (taken as zero when there are none).
    public init(count: Int, fingerprint: UInt32) {
        self.count = count
        self.fingerprint = count == 0 ? 0 : fingerprint
    }

    /// The count as a varint, then the fingerprint unless the count is zero.
    func write(into writer: inout ByteWriter) {
        writer.writeVarint(UInt64(count))
        if count > 0 { writer.write(fingerprint) }
    }

    /// Reads what `write` wrote; a count above a million entries is refused.
    static func read(_ reader: inout ByteReader) throws(ByteDecodingError) -> RangeSummary {
        let count = try reader.readVarint()
        guard count <= 1_000_000 else { throw .outOfRange(field: "range count") }
        return RangeSummary(count: Int(count), fingerprint: count == 0 ? 0 : try reader.readUInt32())
    }
}
