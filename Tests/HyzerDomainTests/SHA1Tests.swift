import Testing

@testable import HyzerDomain

@Suite("SHA-1 (FIPS 180-4 test vectors)")
struct SHA1Tests {
    @Test(
        "digests of the FIPS messages",
        arguments: [
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "a49b2446a02c645bf419f995b67091253a04a259"
            ),
        ]
    )
    func vector(message: String, expected: String) {
        let actual = Hex.encode(SHA1.digest(Array(message.utf8)))
        #expect(actual == expected, "SHA-1(\"\(message)\") is \(actual), expected \(expected)")
    }

    @Test("a million times 'a'")
    func millionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(SHA1.digest(message)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("padding boundaries: 55, 56, 63, 64 and 65 bytes", arguments: [55, 56, 63, 64, 65])
    func paddingBoundaries(length: Int) {
        let expected = [
            55: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
            56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            63: "03f09f5b158a7a8cdad920bddc29b81c18a551f5",
            64: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
            65: "11655326c708d70319be2610e8a57d9a5b959d3b",
        ]
        let digest = Hex.encode(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: length)))
        #expect(digest == expected[length], "SHA-1 of \(length) × 'a' is \(digest)")
    }
}
