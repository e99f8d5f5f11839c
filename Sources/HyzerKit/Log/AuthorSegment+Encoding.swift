import HyzerDomain

extension AuthorSegment {
    /// Bounds that keep a hostile segment from exhausting memory.
    public enum Limits {
        /// The most ops one segment holds.
        public static let opsMax = 1_000_000
        /// The longest tail (clock and payload) of one op, in bytes.
        public static let tailBytesMax = 16 * 1024
    }

    /// `author ‖ firstSequence (varint) ‖ previousHash ‖ count (varint) ‖ tails (each
    /// length-prefixed) ‖ lastSignature` (docs/formats.md).
    public func encode(into writer: inout ByteWriter) {
        writer.write(author)
        writer.writeVarint(firstSequence)
        writer.write(raw: previousHash)
        writer.writeVarint(UInt64(tails.count))
        for tail in tails { writer.write(lengthPrefixed: tail) }
        writer.write(raw: lastSignature)
    }

    /// The segment's canonical bytes (see `encode(into:)`).
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 140 + tails.count * 80)
        encode(into: &writer)
        return writer.bytes
    }

    /// Reads one segment from `reader`; checks only the shape, not the signature.
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let author = try reader.readAuthorID()
        let firstSequence = try reader.readVarint()
        guard firstSequence >= 1 else { throw .outOfRange(field: "first sequence") }
        let previousHash = try reader.readRaw(32)
        let count = try reader.readCount(maximum: Limits.opsMax)
        guard count >= 1 else { throw .outOfRange(field: "op count") }
        guard firstSequence <= AuthorSegment.sequenceMax - UInt64(count - 1) else { throw .outOfRange(field: "sequence") }
        var tails: [[UInt8]] = []
        tails.reserveCapacity(min(count, reader.remaining / 14))
        for _ in 0..<count { tails.append(try reader.readLengthPrefixed(maximum: Limits.tailBytesMax)) }
        let signature = try reader.readRaw(64)
        self.init(author: author, firstSequence: firstSequence, previousHash: previousHash, tails: tails, lastSignature: signature)
    }

    /// Reads exactly one segment from `bytes`; throws `ByteDecodingError` for a malformed one, one over
    /// ``Limits``, or trailing bytes. The signature is not checked here (ingest checks it).
    public init(decoding bytes: [UInt8]) throws(ByteDecodingError) {
        var reader = ByteReader(bytes)
        try self.init(from: &reader)
        try reader.expectEnd()
    }
}
