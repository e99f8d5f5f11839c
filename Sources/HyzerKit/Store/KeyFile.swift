import Foundation
import HyzerCrypto
import HyzerDomain

/// The secret key file: the 64-byte Ed25519 secret key as hexadecimal text, mode 0600.
enum KeyFile {
    static func write(_ keys: SigningKeyPair, to url: URL) throws {
        let temporary = url.appendingPathExtension("tmp")
        let text = Hex.encode(keys.secretKey) + "\n"
        guard FileManager.default.createFile(
            atPath: temporary.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ReplicaError.storage(detail: "cannot write \(temporary.path)") }
        guard rename(temporary.path, url.path) == 0 else {
            throw ReplicaError.storage(detail: "cannot move the key into \(url.path)")
        }
    }

    static func read(from url: URL) throws -> SigningKeyPair {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReplicaError.badKeyFile(path: url.path, detail: "missing or unreadable")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Hex.decode(text), let keys = SigningKeyPair(secretKey: bytes) else {
            throw ReplicaError.badKeyFile(path: url.path, detail: "not an Ed25519 secret key")
        }
        return keys
    }
}
