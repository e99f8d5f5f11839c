import CSodium

/// HMAC-SHA-512-256 (libsodium's `crypto_auth`): proof of holding a key.
public enum MessageAuthentication {
    public static let tagBytes = Int(crypto_auth_BYTES)
    public static let keyBytes = Int(crypto_auth_KEYBYTES)

    public static func tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == keyBytes, "an authentication key has 32 bytes")
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: tagBytes)
        _ = crypto_auth(&out, message, UInt64(message.count), key)
        return out
    }

    /// Constant-time check of `tag`.
    public static func verify(_ tag: [UInt8], of message: [UInt8], key: [UInt8]) -> Bool {
        guard tag.count == tagBytes, key.count == keyBytes else { return false }
        Sodium.ready()
        return crypto_auth_verify(tag, message, UInt64(message.count), key) == 0
    }
}
