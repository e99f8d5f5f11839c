import CSodium

/// Ed25519 signature verification.
public enum Ed25519 {
    /// Whether `signature` is `publicKey`'s valid signature of `message`.
    public static func verify<Message: ContiguousBytes>(
        signature: [UInt8], of message: Message, publicKey: [UInt8]
    ) -> Bool {
        guard signature.count == SigningKeyPair.signatureBytes,
            publicKey.count == SigningKeyPair.publicKeyBytes
        else { return false }
        Sodium.ready()
        return message.withUnsafeBytes { raw in
            crypto_sign_verify_detached(
                signature, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(raw.count), publicKey) == 0
        }
    }
}
