import CSodium

/// An ephemeral X25519 key pair for one handshake, and the session keys two of them agree on
/// (libsodium's `crypto_kx`: BLAKE2b-512 of the shared point and both public keys).
public struct KeyExchange: Sendable {
    public static let publicKeyBytes = Int(crypto_kx_PUBLICKEYBYTES)
    public static let seedBytes = Int(crypto_kx_SEEDBYTES)

    public let publicKey: [UInt8]
    private let secretKey: [UInt8]

    /// A fresh key pair from the secure random source.
    public init() {
        Sodium.ready()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_kx_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_kx_SECRETKEYBYTES))
        _ = crypto_kx_keypair(&publicKey, &secretKey)
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The key pair a seed of `seedBytes` determines: the simulator draws handshake keys from
    /// its seed, so a run is reproducible. A wrong-sized seed is hashed to the right size.
    public init(seed: [UInt8]) {
        Sodium.ready()
        let seed = seed.count == Self.seedBytes ? seed : Blake2b.hash256(seed)
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_kx_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_kx_SECRETKEYBYTES))
        _ = crypto_kx_seed_keypair(&publicKey, &secretKey, seed)
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// `(receive, transmit)` keys of the dialing side; `nil` for an invalid peer key.
    public func clientKeys(serverPublicKey: [UInt8]) -> (receive: [UInt8], transmit: [UInt8])? {
        guard serverPublicKey.count == Self.publicKeyBytes else { return nil }
        var receive = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        var transmit = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        guard crypto_kx_client_session_keys(&receive, &transmit, publicKey, secretKey, serverPublicKey) == 0 else { return nil }
        return (receive, transmit)
    }

    /// `(receive, transmit)` keys of the listening side; `nil` for an invalid peer key.
    public func serverKeys(clientPublicKey: [UInt8]) -> (receive: [UInt8], transmit: [UInt8])? {
        guard clientPublicKey.count == Self.publicKeyBytes else { return nil }
        var receive = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        var transmit = [UInt8](repeating: 0, count: Int(crypto_kx_SESSIONKEYBYTES))
        guard crypto_kx_server_session_keys(&receive, &transmit, publicKey, secretKey, clientPublicKey) == 0 else { return nil }
        return (receive, transmit)
    }
}
