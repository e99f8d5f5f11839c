import CSodium

/// Anonymous public-key encryption to an Ed25519 identity (libsodium's `crypto_box_seal`):
/// anyone can seal a message to a device's author key, only that device can open it. The
/// Ed25519 key is converted to its X25519 form (`crypto_sign_ed25519_pk_to_curve25519`), so a
/// device needs no second key pair.
public enum SealedBox {
    /// What sealing adds to a message: an ephemeral public key and a MAC.
    public static let overheadBytes = Int(crypto_box_sealbytes())

    /// The bytes of an ephemeral seed.
    public static let ephemeralSeedBytes = Int(crypto_box_SEEDBYTES)

    /// `message` sealed to the holder of the Ed25519 `publicKey`, with the ephemeral key pair
    /// made from `ephemeralSeed` rather than the random source; `nil` when the key is not a
    /// valid point (it has no X25519 form) or the seed is not 32 bytes. The construction is
    /// `crypto_box_seal`'s — ephemeral public key ‖ `crypto_box_easy` under the nonce
    /// BLAKE2b-192(ephemeral public key ‖ recipient key) — so `crypto_box_seal_open` opens it.
    /// Callers derive the seed from the secret they seal (docs/formats.md): whoever can make the
    /// seed already holds the message, and a store's ops stay a function of its inputs.
    public static func seal(_ message: [UInt8], toSigningKey publicKey: [UInt8], ephemeralSeed: [UInt8]) -> [UInt8]? {
        guard ephemeralSeed.count == ephemeralSeedBytes, let recipient = curve25519PublicKey(ofSigningKey: publicKey) else {
            return nil
        }
        var ephemeralPublic = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        var ephemeralSecret = [UInt8](repeating: 0, count: Int(crypto_box_SECRETKEYBYTES))
        defer { sodium_memzero(&ephemeralSecret, ephemeralSecret.count) }
        guard crypto_box_seed_keypair(&ephemeralPublic, &ephemeralSecret, ephemeralSeed) == 0 else { return nil }
        var nonce = [UInt8](repeating: 0, count: Int(crypto_box_NONCEBYTES))
        let nonceInput = ephemeralPublic + recipient
        guard crypto_generichash(&nonce, nonce.count, nonceInput, UInt64(nonceInput.count), nil, 0) == 0 else { return nil }
        var boxed = [UInt8](repeating: 0, count: message.count + Int(crypto_box_MACBYTES))
        guard crypto_box_easy(&boxed, message, UInt64(message.count), nonce, recipient, ephemeralSecret) == 0 else { return nil }
        return ephemeralPublic + boxed
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
