import CSodium

/// Subkeys of a master secret (libsodium's BLAKE2b-based `crypto_kdf`): one secret, many
/// independent keys, each named by an 8-character context and a number.
public enum KeyDerivation {
    public static func subkey(of master: [UInt8], context: String, id: UInt64, bytes: Int = 32) -> [UInt8] {
        precondition(master.count == Int(crypto_kdf_KEYBYTES), "a master key has 32 bytes")
        precondition(context.utf8.count == Int(crypto_kdf_CONTEXTBYTES), "a context has 8 bytes")
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: bytes)
        let contextBytes = Array(context.utf8).map { CChar(bitPattern: $0) }
        _ = crypto_kdf_derive_from_key(&out, bytes, id, contextBytes, master)
        return out
    }
}
