import HyzerDomain
import Testing

@Suite struct AuthorIDTests {
    /// Ids with the same bytes are one key, however each was made; other bytes are another key.
    @Test func idsAreKeysByTheirBytes() throws {
        let fromHex = try #require(AuthorID(hex: String(repeating: "ab", count: 32)))
        let fromBytes = try #require(AuthorID(bytes: Array(repeating: 0xab, count: 32)))
        var last = Array(repeating: UInt8(0xab), count: 32)
        last[31] = 0xac
        let different = try #require(AuthorID(bytes: last))
        #expect(fromHex.hashValue == fromBytes.hashValue)
        #expect(Set([fromHex, fromBytes, different]).count == 2)
        #expect([fromHex: 1, different: 2][fromBytes] == 1)
    }
}
