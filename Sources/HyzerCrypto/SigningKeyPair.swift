import CSodium

/// An Ed25519 key pair. The public key is a replica's author id; the secret key never leaves
/// the replica's store directory.
public struct SigningKeyPair: Sendable {
    /// 32 bytes.
    public let publicKey: [UInt8]
    /// 64 bytes (libsodium's seed-and-public-key form).
    public let secretKey: [UInt8]

    public static let publicKeyBytes = Int(crypto_sign_PUBLICKEYBYTES)
    public static let secretKeyBytes = Int(crypto_sign_SECRETKEYBYTES)
    public static let seedBytes = Int(crypto_sign_SEEDBYTES)
    public static let signatureBytes = Int(crypto_sign_BYTES)

    /// A new key pair from the system's secure random source.
    public static func generate() -> SigningKeyPair {
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        var secretKey = [UInt8](repeating: 0, count: secretKeyBytes)
        _ = crypto_sign_keypair(&publicKey, &secretKey)
        return SigningKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The key pair that a 32-byte seed determines (the simulator's replicas use seeded keys).
    public init(seed: [UInt8]) {
        precondition(seed.count == Self.seedBytes, "an Ed25519 seed has 32 bytes")
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: Self.publicKeyBytes)
        var secretKey = [UInt8](repeating: 0, count: Self.secretKeyBytes)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A key pair from its stored 64-byte secret key; `nil` when the bytes are not one.
    public init?(secretKey: [UInt8]) {
        guard secretKey.count == Self.secretKeyBytes else { return nil }
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: Self.publicKeyBytes)
        guard crypto_sign_ed25519_sk_to_pk(&publicKey, secretKey) == 0 else { return nil }
        // The secret key holds its public key; a mismatch means the file was damaged.
        var check = [UInt8](repeating: 0, count: Self.publicKeyBytes)
        var checkSecret = [UInt8](repeating: 0, count: Self.secretKeyBytes)
        _ = crypto_sign_seed_keypair(&check, &checkSecret, Array(secretKey.prefix(Self.seedBytes)))
        guard check == publicKey else { return nil }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private init(publicKey: [UInt8], secretKey: [UInt8]) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The 64-byte detached Ed25519 signature of `message`.
    public func sign<Message: ContiguousBytes>(_ message: Message) -> [UInt8] {
        Sodium.ready()
        var signature = [UInt8](repeating: 0, count: Self.signatureBytes)
        message.withUnsafeBytes { raw in
            _ = crypto_sign_detached(
                &signature, nil, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(raw.count), secretKey)
        }
        return signature
    }
}
