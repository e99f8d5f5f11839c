/// A replica's identity: its 32-byte Ed25519 public key. Every op names its author by it,
/// and authors compare as bytes, which makes last-writer-wins ties total.
public struct AuthorID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number of bytes in an author id.
    public static let byteCount = 32

    /// The public key's bytes.
    public let bytes: [UInt8]

    /// An author id from exactly 32 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// An author id from 64 lowercase or uppercase hexadecimal digits.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex), bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Lowercase hexadecimal, 64 digits.
    public var hex: String { Hex.encode(bytes) }

    /// The lowercase hexadecimal key, as `hex`.
    public var description: String { hex }

    /// The 32 bytes in one call: the derived hash combined them one at a time, and every vector
    /// lookup hashes an author (docs/performance.md, "A tournament").
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The same 32 bytes, compared as four 64-bit words: every vector lookup compares authors,
    /// and the derived comparison went byte by byte (docs/performance.md, "A tournament").
    public static func == (lhs: AuthorID, rhs: AuthorID) -> Bool {
        lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                var differing: UInt64 = 0
                for offset in stride(from: 0, to: byteCount, by: 8) {
                    differing |=
                        left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        ^ right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                }
                return differing == 0
            }
        }
    }

    /// Byte-wise lexicographic order: the tie-break of last-writer-wins registers. Compared as
    /// four big-endian 64-bit words, which is the same order: sorting a vector by author was a
    /// fifth of a crowded `serve`'s time byte by byte (docs/performance.md, "A crowd").
    public static func < (lhs: AuthorID, rhs: AuthorID) -> Bool {
        lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                for offset in stride(from: 0, to: byteCount, by: 8) {
                    let (l, r) = (
                        UInt64(bigEndian: left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                        UInt64(bigEndian: right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    )
                    if l != r { return l < r }
                }
                return false
            }
        }
    }
}

/// An author id encodes as its 64 lowercase hexadecimal digits, as the JSON documents write a
/// device, and decodes from 64 digits of either case.
extension AuthorID: Codable {
    /// Decodes the id from its hexadecimal text; refuses anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = AuthorID(hex: text) else {
            throw Swift.DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not 64 hexadecimal digits")
        }
        self = id
    }

    /// Encodes the id as `hex`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
