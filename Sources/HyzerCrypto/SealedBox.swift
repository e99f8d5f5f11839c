import CSodium

/// Anonymous public-key encryption to an Ed25519 identity (libsodium's `crypto_box_seal`):
/// anyone can seal a message to a device's author key, only that device can open it. The
/// Ed25519 key is converted to its X25519 form (`crypto_sign_ed25519_pk_to_curve25519`), so a
/// device needs no second key pair.
public enum SealedBox {
    /// What sealing adds to a message: an ephemeral public key and a MAC.
    public static let overheadBytes = Int(crypto_box_sealbytes())

    /// `message` sealed to the holder of the Ed25519 `publicKey`; `nil` when the key is not a
    /// valid point (it has no X25519 form).
    public static func seal(_ message: [UInt8], toSigningKey publicKey: [UInt8]) -> [UInt8]? {
        guard let recipient = curve25519PublicKey(ofSigningKey: publicKey) else { return nil }
        var out = [UInt8](repeating: 0, count: message.count + overheadBytes)
        guard crypto_box_seal(&out, message, UInt64(message.count), recipient) == 0 else { return nil }
        return out
    }

    /// The message `ciphertext` holds, or `nil` when it was not sealed to `keys` or was altered.
    public static func open(_ ciphertext: [UInt8], with keys: SigningKeyPair) -> [UInt8]? {
        open(ciphertext, signingKey: keys.publicKey, curve25519SecretKey: keys.curve25519SecretKey)
    }

    /// The message `ciphertext` holds, opened with the X25519 secret key of the Ed25519
    /// `signingKey` it was sealed to (what a store keeps of a key it no longer signs with), or
    /// `nil` when it was not sealed to that key or was altered.
    public static func open(_ ciphertext: [UInt8], signingKey: [UInt8], curve25519SecretKey secretKey: [UInt8]) -> [UInt8]? {
        guard ciphertext.count >= overheadBytes, secretKey.count == Int(crypto_scalarmult_curve25519_BYTES),
            let publicKey = curve25519PublicKey(ofSigningKey: signingKey)
        else { return nil }
        var out = [UInt8](repeating: 0, count: ciphertext.count - overheadBytes)
        guard crypto_box_seal_open(&out, ciphertext, UInt64(ciphertext.count), publicKey, secretKey) == 0 else { return nil }
        return out
    }

    /// The X25519 public key of an Ed25519 public key; `nil` for bytes that are not one.
    public static func curve25519PublicKey(ofSigningKey publicKey: [UInt8]) -> [UInt8]? {
        guard publicKey.count == SigningKeyPair.publicKeyBytes else { return nil }
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&out, publicKey) == 0 else { return nil }
        return out
    }
}

extension SigningKeyPair {
    /// The X25519 secret key of this Ed25519 key pair (`crypto_sign_ed25519_sk_to_curve25519`).
    public var curve25519SecretKey: [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        _ = crypto_sign_ed25519_sk_to_curve25519(&out, secretKey)
        return out
    }
}
