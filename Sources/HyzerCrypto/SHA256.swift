import CSodium

/// SHA-256 and HMAC-SHA-256 (libsodium's `crypto_hash_sha256` and `crypto_auth_hmacsha256`):
/// what AWS Signature Version 4 signs S3 requests with (docs/bucket-sync.md). Nothing of the
/// group's own is hashed or authenticated with them.
public enum SHA256 {
    /// The 32-byte SHA-256 digest of `message`.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&out, message, UInt64(message.count))
        return out
    }

    /// The 32-byte HMAC-SHA-256 of `message` under `key`, a key of any length (RFC 2104).
    public static func hmac(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        Sodium.ready()
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256_init(&state, key, key.count)
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &out)
        return out
    }
}
