import HyzerDomain
import Testing

/// The canonical decoder refuses, with a typed error, every count it cannot honour.
@Suite struct ByteReaderTests {
    @Test func aNegativeByteCountIsRefusedNotTrapped() {
        var reader = ByteReader([1, 2, 3])
        #expect(throws: ByteDecodingError.outOfRange(field: "byte count")) { try reader.readRaw(-1) }
        #expect(reader.offset == 0)
    }

    /// A reader of a prefix reads what lies before its end and nothing after it, varints included.
    @Test func aReaderOfAPrefixEndsWhereThePrefixDoes() throws {
        let bytes: [UInt8] = [0x01, 0x02, 0x05, 0x7f, 0x80]
        var reader = ByteReader(bytes, prefix: 3)
        #expect(reader.remaining == 3)
        #expect(try reader.readRaw(2) == [0x01, 0x02])
        #expect(throws: ByteDecodingError.trailingBytes(count: 1)) { try reader.expectEnd() }
        #expect(try reader.readVarint() == 5)
        #expect(reader.isAtEnd)
        try reader.expectEnd()
        #expect(throws: ByteDecodingError.truncated(needed: 1, remaining: 0)) { try reader.readVarint() }
        var short = ByteReader(bytes, prefix: 2)
        #expect(throws: ByteDecodingError.truncated(needed: 4, remaining: 2)) { try short.readUInt32() }
        var empty = ByteReader(bytes, prefix: 0)
        #expect(throws: ByteDecodingError.truncated(needed: 1, remaining: 0)) { try empty.readByte() }
    }

    @Test func aLengthBeyondTheBytesIsTruncated() {
        var reader = ByteReader([0x05, 1, 2])
        #expect(throws: ByteDecodingError.truncated(needed: 5, remaining: 2)) { try reader.readLengthPrefixed(maximum: 10) }
    }

    @Test func aLengthBeyondItsMaximumIsTooLong() {
        var reader = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        #expect(throws: ByteDecodingError.tooLong(length: .max, maximum: 10)) { try reader.readLengthPrefixed(maximum: 10) }
    }

    @Test func theLargestVarintIsReadAndOneBitMoreIsRefused() throws {
        var largest = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        #expect(try largest.readVarint() == .max)
        var wider = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
        #expect(throws: ByteDecodingError.malformedVarint) { try wider.readVarint() }
        var longer = ByteReader([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])
        #expect(throws: ByteDecodingError.malformedVarint) { try longer.readVarint() }
    }

    @Test func aStringReadIntoAnotherIsTheStringOfItsBytes() throws {
        var reader = ByteReader([3] + Array("Ava".utf8) + [3] + Array("Ben".utf8) + [0] + [2, 0xc3, 0x28])
        var string = "Ava"
        try reader.readString(maximumBytes: 10, into: &string)
        #expect(string == "Ava")
        try reader.readString(maximumBytes: 10, into: &string)
        #expect(string == "Ben")
        try reader.readString(maximumBytes: 10, into: &string)
        #expect(string == "")
        #expect(throws: ByteDecodingError.invalidUTF8) { try reader.readString(maximumBytes: 10, into: &string) }
        #expect(string == "", "a refused string replaces nothing")
    }
}
