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
    /// The ciphertext is read where it lies and the message written once, into the array
    /// returned (a large bundle is not copied on the way).
    public static func open<Ciphertext: ContiguousBytes>(
        _ ciphertext: Ciphertext, key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []
    ) -> [UInt8]? {
        ciphertext.withUnsafeBytes { sealed -> [UInt8]? in
            guard key.count == keyBytes, nonce.count == nonceBytes, sealed.count >= tagBytes else { return nil }
            Sodium.ready()
            var opened = false
            // Room for one byte at least: libsodium is handed a real buffer even for an empty message.
            let message = [UInt8](unsafeUninitializedCapacity: max(sealed.count - tagBytes, 1)) { out, initialized in
                var written: UInt64 = 0
                opened =
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress, &written, nil, sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                        associatedData, UInt64(associatedData.count), nonce, key) == 0
                // Nothing of a message that failed is kept; a message that opened fills the array.
                initialized = opened ? Int(written) : 0
            }
            return opened ? message : nil
        }
    }
}
