import HyzerCrypto
import HyzerDomain
import Testing

/// Sealing to a device's Ed25519 key (docs/security.md, "Removing a member"): only that
/// device opens what is sealed to it.
@Suite struct SealedBoxTests {
    /// libsodium's own vector (test/default/ed25519_convert.c).
    @Test func convertsEd25519KeysToTheirX25519Form() {
        let keys = SigningKeyPair(seed: Hex.decode("421151a459faeade3d247115f94aedae42318124095afabe4d1451a559faedee")!)
        #expect(
            Hex.encode(SealedBox.curve25519PublicKey(ofSigningKey: keys.publicKey)!)
                == "f1814f0e8ff1043d8a44d25babff3cedcae6c22c3edaa48f857ae70de2baae50")
        #expect(Hex.encode(keys.curve25519SecretKey) == "8052030376d47112be7f73ed7a019293dd12ad910b654455798b4667d73de166")
    }

    @Test func onlyTheRecipientOpens() throws {
        let recipient = seededKeys(1)
        let other = seededKeys(2)
        let message = Array("a new group secret".utf8)
        let sealed = try #require(SealedBox.seal(message, toSigningKey: recipient.publicKey, ephemeralSeed: SecureRandom.bytes(32)))
        #expect(sealed.count == message.count + SealedBox.overheadBytes)
        #expect(SealedBox.open(sealed, with: recipient) == message)
        #expect(SealedBox.open(sealed, with: other) == nil)
        var altered = sealed
        altered[altered.count - 1] ^= 1
        #expect(SealedBox.open(altered, with: recipient) == nil)
        #expect(SealedBox.open(Array(sealed.prefix(SealedBox.overheadBytes - 1)), with: recipient) == nil)
    }

    @Test func refusesAKeyThatIsNotAPoint() {
        #expect(SealedBox.seal([1], toSigningKey: [UInt8](repeating: 0, count: 31), ephemeralSeed: [UInt8](repeating: 1, count: 32)) == nil)
        #expect(SealedBox.seal([1], toSigningKey: seededKeys(1).publicKey, ephemeralSeed: [UInt8](repeating: 1, count: 31)) == nil)
        // Not on the curve: y = 2 has no x.
        #expect(SealedBox.curve25519PublicKey(ofSigningKey: [2] + [UInt8](repeating: 0, count: 31)) == nil)
    }

    /// The seeded seal is `crypto_box_seal`'s construction: the same inputs give the same bytes,
    /// another seed other bytes, and both open with `crypto_box_seal_open`. The vector is pinned
    /// in docs/formats.md.
    @Test func aSeededSealIsDeterministicAndOpensLikeAnyOther() throws {
        let recipient = seededKeys(1)
        let message = [UInt8](repeating: 0x51, count: 32)
        let seed = [UInt8](repeating: 7, count: SealedBox.ephemeralSeedBytes)
        let sealed = try #require(SealedBox.seal(message, toSigningKey: recipient.publicKey, ephemeralSeed: seed))
        #expect(SealedBox.seal(message, toSigningKey: recipient.publicKey, ephemeralSeed: seed) == sealed)
        #expect(SealedBox.seal(message, toSigningKey: recipient.publicKey, ephemeralSeed: [UInt8](repeating: 8, count: 32)) != sealed)
        #expect(sealed.count == message.count + SealedBox.overheadBytes)
        #expect(SealedBox.open(sealed, with: recipient) == message)
        #expect(SealedBox.open(sealed, with: seededKeys(2)) == nil)
        #expect(
            Hex.encode(sealed)
                == "761d88ec830413919dfe9d4d1d56f17e653c8c994082df5b137b90a0ae6edf74a9fd0d5ba5f56c2ab38389ea52c835961b6f94e4870d5b2f78a9fd5432a843a70612c376ed96acd23ac1f3abefdff9bf"
        )
    }
}
