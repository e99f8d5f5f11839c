import CSodium

/// XChaCha20-Poly1305 authenticated encryption (libsodium's IETF AEAD construction).
public enum SecretBox {
    public static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    public static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// `message` encrypted and authenticated under `key` and `nonce`, binding `associatedData`.
    public static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) -> [UInt8] {
        precondition(key.count == keyBytes && nonce.count == nonceBytes, "XChaCha20-Poly1305 takes a 32-byte key and a 24-byte nonce")
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: message.count + tagBytes)
        var written: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &out, &written, message, UInt64(message.count), associatedData, UInt64(associatedData.count), nil, nonce, key)
        return Array(out.prefix(Int(written)))
    }

    /// The message, or `nil` when the ciphertext, nonce, key or associated data do not match.
    public static func open(_ ciphertext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) -> [UInt8]? {
        guard key.count == keyBytes, nonce.count == nonceBytes, ciphertext.count >= tagBytes else { return nil }
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: ciphertext.count - tagBytes)
        var written: UInt64 = 0
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &out, &written, nil, ciphertext, UInt64(ciphertext.count), associatedData, UInt64(associatedData.count), nonce, key)
        return status == 0 ? Array(out.prefix(Int(written))) : nil
    }
}
