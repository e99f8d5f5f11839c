import HyzerCrypto
import HyzerDomain

extension SigningKeyPair {
    /// The author id of this key pair: its public key, which Ed25519 makes 32 bytes long.
    public var author: AuthorID {
        guard let author = AuthorID(bytes: publicKey) else { preconditionFailure("an Ed25519 public key has 32 bytes") }
        return author
    }
}
