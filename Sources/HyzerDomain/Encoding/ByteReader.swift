import Foundation

/// Why canonical bytes could not be read.
public enum ByteDecodingError: Error, Equatable, Sendable {
    /// The bytes ended before the value did.
    case truncated(needed: Int, remaining: Int)
    /// A varint longer than ten bytes or wider than 64 bits.
    case malformedVarint
    /// A string that is not valid UTF-8.
    case invalidUTF8
    /// A length or count beyond what the format allows.
    case tooLong(length: UInt64, maximum: Int)
    /// A tag byte with no meaning in this version of the format.
    case unknownTag(UInt8, field: String)
    /// Bytes left over after the value: canonical encodings have exactly one form.
    case trailingBytes(count: Int)
    /// A value outside its field's range.
    case outOfRange(field: String)
}

/// Reads the canonical encoding that `ByteWriter` writes, refusing anything else.
public struct ByteReader: Sendable {
    private let bytes: [UInt8]
    /// Where the bytes this reader reads end.
    private let end: Int
    /// How many bytes were read so far.
    public private(set) var offset: Int

    /// A reader at the start of a copy of `bytes`.
    public init<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        self.bytes = Array(bytes)
        end = self.bytes.count
        offset = 0
    }

    /// A reader of the first `count` of `bytes`, which it shares rather than copies (a bundle's
    /// signed part, read before its signature).
    public init(_ bytes: [UInt8], prefix count: Int) {
        precondition(count >= 0 && count <= bytes.count, "a prefix of the bytes")
        self.bytes = bytes
        end = count
        offset = 0
    }

    /// How many bytes are left to read.
    public var remaining: Int { end - offset }
    /// Whether every byte was read.
    public var isAtEnd: Bool { offset == end }

    /// One byte; throws `.truncated` at the end.
    public mutating func readByte() throws(ByteDecodingError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian 4-byte unsigned integer; throws `.truncated` when fewer bytes remain.
    public mutating func readUInt32() throws(ByteDecodingError) -> UInt32 {
        try need(4)
        var value: UInt32 = 0
        for index in offset..<offset + 4 { value = value << 8 | UInt32(bytes[index]) }
        offset += 4
        return value
    }

    /// A big-endian 8-byte unsigned integer; throws `.truncated` when fewer bytes remain.
    public mutating func readUInt64() throws(ByteDecodingError) -> UInt64 {
        try need(8)
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// An unsigned LEB128 varint in its shortest form.
    public mutating func readVarint() throws(ByteDecodingError) -> UInt64 {
        // One byte below 0x80 is a whole varint in its shortest form (strokes, pars, counts).
        if offset < end, bytes[offset] < 0x80 {
            offset += 1
            return UInt64(bytes[offset - 1])
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 64, shift < 63 || byte <= 1 else { throw .malformedVarint }
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                // A final zero byte after other bytes is a longer form of a shorter varint.
                guard byte != 0 || shift == 0 else { throw .malformedVarint }
                return value
            }
            shift += 7
        }
    }

    /// A varint no larger than `maximum`, as an `Int`.
    public mutating func readCount(maximum: Int) throws(ByteDecodingError) -> Int {
        let value = try readVarint()
        guard value <= UInt64(maximum) else { throw .tooLong(length: value, maximum: maximum) }
        return Int(value)
    }

    /// A bool as one byte, 0 or 1; throws `.unknownTag` for any other byte.
    public mutating func readBool() throws(ByteDecodingError) -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        case let other: throw .unknownTag(other, field: "bool")
        }
    }

    /// The next `count` bytes as they are; throws `.truncated` when fewer remain, `.outOfRange` for a
    /// negative count.
    public mutating func readRaw(_ count: Int) throws(ByteDecodingError) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A varint length of at most `maximum` (else `.tooLong`), then that many bytes.
    public mutating func readLengthPrefixed(maximum: Int) throws(ByteDecodingError) -> [UInt8] {
        try readRaw(try readCount(maximum: maximum))
    }

    /// Validated in place: no copy of the bytes on the way (decoding caches reads many).
    public mutating func readString(maximumBytes: Int) throws(ByteDecodingError) -> String {
        try readString(count: try readCount(maximum: maximumBytes))
    }

    private mutating func readString(count: Int) throws(ByteDecodingError) -> String {
        try need(count)
        defer { offset += count }
        guard let text = String(validating: bytes[offset..<offset + count], as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    /// Reads a string as `readString` does into `string`, which keeps its storage when it already
    /// holds those bytes: a string that repeats from one encoding to the next (a player's id in
    /// every round) is made once and shared, not allocated, checked and freed each time.
    public mutating func readString(maximumBytes: Int, into string: inout String) throws(ByteDecodingError) {
        let count = try readCount(maximum: maximumBytes)
        try need(count)
        let start = offset
        let same = string.withUTF8 { old in
            bytes.withUnsafeBufferPointer { new in
                old.count == count && (count == 0 || memcmp(old.baseAddress!, new.baseAddress! + start, count) == 0)
            }
        }
        if same {
            offset += count
        } else {
            string = try readString(count: count)
        }
    }

    /// A participant id written as its text (`ByteWriter.write(_: ParticipantID)`); refuses text
    /// that names no participant.
    public mutating func readParticipantID() throws(ByteDecodingError) -> ParticipantID {
        guard let id = ParticipantID(text: try readString(maximumBytes: 64)) else { throw .outOfRange(field: "participant") }
        return id
    }

    /// A UUID as 16 raw bytes.
    public mutating func readUUID() throws(ByteDecodingError) -> UUID {
        try need(16)
        let (raw, at) = (bytes, offset)
        offset += 16
        return UUID(
            uuid: (
                raw[at], raw[at + 1], raw[at + 2], raw[at + 3], raw[at + 4], raw[at + 5], raw[at + 6], raw[at + 7],
                raw[at + 8], raw[at + 9], raw[at + 10], raw[at + 11], raw[at + 12], raw[at + 13], raw[at + 14], raw[at + 15]
            ))
    }

    /// An author id as 32 raw bytes.
    public mutating func readAuthorID() throws(ByteDecodingError) -> AuthorID {
        guard let author = AuthorID(bytes: try readRaw(AuthorID.byteCount)) else { throw .outOfRange(field: "author") }
        return author
    }

    /// A clock reading: its milliseconds (8 bytes), then its counter (4 bytes), big-endian.
    public mutating func readTimestamp() throws(ByteDecodingError) -> HLCTimestamp {
        HLCTimestamp(physicalMilliseconds: try readUInt64(), counter: try readUInt32())
    }

    /// Throws unless every byte was read.
    public func expectEnd() throws(ByteDecodingError) {
        guard isAtEnd else { throw .trailingBytes(count: remaining) }
    }

    private func need(_ count: Int) throws(ByteDecodingError) {
        guard count >= 0 else { throw .outOfRange(field: "byte count") }
        guard count <= remaining else { throw .truncated(needed: count, remaining: remaining) }
    }
}
