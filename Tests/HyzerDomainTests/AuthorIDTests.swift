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

    /// Equality is compared a word at a time: ids that differ in any one byte, in any bit of
    /// it, are different ids; ids of the same bytes held in different arrays are one.
    @Test func idsDifferingInAnyByteAreDifferent() throws {
        let base = (0..<AuthorID.byteCount).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let id = try #require(AuthorID(bytes: base))
        #expect(id == (try #require(AuthorID(bytes: Array(base)))))
        for index in 0..<AuthorID.byteCount {
            for bit in 0..<8 {
                var other = base
                other[index] ^= 1 << bit
                let different = try #require(AuthorID(bytes: other))
                #expect(id != different, "byte \(index), bit \(bit)")
                #expect(different != id, "byte \(index), bit \(bit)")
            }
        }
    }

    /// Authors order as their bytes do, lexicographically, whichever byte differs first: ids that
    /// share a prefix of every length up to 31 bytes, then differ by one byte either way.
    @Test func authorsOrderAsTheirBytes() throws {
        var seed: UInt64 = 0x9e37_79b9_7f4a_7c15
        func byte() -> UInt8 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        for shared in 0..<AuthorID.byteCount {
            let base = (0..<AuthorID.byteCount).map { _ in byte() }
            var other = base
            other[shared] = byte()
            for index in shared + 1..<AuthorID.byteCount { other[index] = byte() }
            let (a, b) = (try #require(AuthorID(bytes: base)), try #require(AuthorID(bytes: other)))
            #expect((a < b) == base.lexicographicallyPrecedes(other), "differing from byte \(shared)")
            #expect((b < a) == other.lexicographicallyPrecedes(base), "differing from byte \(shared)")
            #expect(!(a < a))
        }
    }
}
