import HyzerCrypto
import Testing

/// XChaCha20-Poly1305, as sealed files use it (docs/formats.md, "Sealed file"): a box opens
/// where it lies in a larger buffer, only under its key, nonce and associated data.
@Suite struct SecretBoxTests {
    static let key = [UInt8](repeating: 3, count: SecretBox.keyBytes)
    static let nonce = [UInt8](repeating: 5, count: SecretBox.nonceBytes)

    @Test(arguments: [0, 1, 70_000])
    func aBoxOpensWhereItLiesInALargerBuffer(messageBytes: Int) throws {
        let message = (0..<messageBytes).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let box = SecretBox.seal(message, key: Self.key, nonce: Self.nonce, associatedData: [9])
        #expect(box.count == messageBytes + SecretBox.tagBytes)
        let file = [0xaa, 0xbb] + box + [0xcc]
        #expect(SecretBox.open(file[2..<file.count - 1], key: Self.key, nonce: Self.nonce, associatedData: [9]) == message)
        #expect(SecretBox.open(box, key: Self.key, nonce: Self.nonce, associatedData: [9]) == message)
    }

    @Test func anythingChangedOpensNothing() {
        let box = SecretBox.seal([1, 2, 3], key: Self.key, nonce: Self.nonce, associatedData: [9])
        for position in box.indices {
            var damaged = box
            damaged[position] ^= 0x01
            #expect(SecretBox.open(damaged, key: Self.key, nonce: Self.nonce, associatedData: [9]) == nil)
        }
        #expect(SecretBox.open(box, key: Self.key, nonce: Self.nonce, associatedData: [8]) == nil)
        #expect(SecretBox.open(box, key: [UInt8](repeating: 4, count: SecretBox.keyBytes), nonce: Self.nonce, associatedData: [9]) == nil)
        #expect(SecretBox.open(box.prefix(SecretBox.tagBytes - 1), key: Self.key, nonce: Self.nonce, associatedData: [9]) == nil)
        #expect(SecretBox.open(box, key: Self.key, nonce: Array(Self.nonce.dropLast()), associatedData: [9]) == nil)
    }
}
