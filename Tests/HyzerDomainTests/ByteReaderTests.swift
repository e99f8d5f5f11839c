import HyzerDomain
import Testing

/// The canonical decoder refuses, with a typed error, every count it cannot honour.
@Suite struct ByteReaderTests {
    @Test func aNegativeByteCountIsRefusedNotTrapped() {
        var reader = ByteReader([1, 2, 3])
        #expect(throws: DecodingError.outOfRange(field: "byte count")) { try reader.readRaw(-1) }
        #expect(reader.offset == 0)
    }

    @Test func aLengthBeyondTheBytesIsTruncated() {
        var reader = ByteReader([0x05, 1, 2])
        #expect(throws: DecodingError.truncated(needed: 5, remaining: 2)) { try reader.readLengthPrefixed(maximum: 10) }
    }

    @Test func aLengthBeyondItsMaximumIsTooLong() {
        var reader = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        #expect(throws: DecodingError.tooLong(length: .max, maximum: 10)) { try reader.readLengthPrefixed(maximum: 10) }
    }

    @Test func theLargestVarintIsReadAndOneBitMoreIsRefused() throws {
        var largest = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        #expect(try largest.readVarint() == .max)
        var wider = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
        #expect(throws: DecodingError.malformedVarint) { try wider.readVarint() }
        var longer = ByteReader([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])
        #expect(throws: DecodingError.malformedVarint) { try longer.readVarint() }
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
        #expect(throws: DecodingError.invalidUTF8) { try reader.readString(maximumBytes: 10, into: &string) }
        #expect(string == "", "a refused string replaces nothing")
    }
}
