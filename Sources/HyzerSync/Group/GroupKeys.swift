import HyzerCrypto

/// Keys derived from one epoch's group secret, one per use.
struct GroupKeys {
    /// Encrypts bundles and vectors written to shared folders.
    let fileKey: [UInt8]

    init(secret: [UInt8]) {
        fileKey = KeyDerivation.subkey(of: secret, context: "hyzrfile", id: 1)
    }
}
