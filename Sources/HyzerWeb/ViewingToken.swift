import Foundation
import HyzerCrypto
import HyzerKit

/// The secret a spectator's link carries when `serve --http` listens beyond loopback: 16 bytes
/// derived from the group secret with `crypto_kdf` (context `hyzrview`), numbered by a salt kept
/// in the replica directory (`web-view-salt`). Rotating the salt revokes every link handed out.
public enum ViewingToken {
    /// The salt's file in the replica directory: 16 hex digits, written by this replica only.
    public static let saltFileName = "web-view-salt"

    /// The current token, creating the salt on first use; `rotate` draws a new salt first.
    public static func current(groupSecret: [UInt8], store: URL, rotate: Bool = false) throws -> String {
        let file = store.appendingPathComponent(saltFileName)
        let salt = rotate ? nil : try readSalt(file)
        return token(groupSecret: groupSecret, salt: try salt ?? writeSalt(file))
    }

    /// The token for one salt.
    public static func token(groupSecret: [UInt8], salt: UInt64) -> String {
        KeyDerivation.subkey(of: groupSecret, context: "hyzrview", id: salt, bytes: 16).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `offered` is `expected`, in time independent of where they differ.
    public static func matches(_ offered: Substring, _ expected: String) -> Bool {
        let (lhs, rhs) = (Array(offered.utf8), Array(expected.utf8))
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func readSalt(_ file: URL) throws -> UInt64? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        guard attributes[.type] as? FileAttributeType == .typeRegular, (attributes[.size] as? Int ?? 0) <= 64,
            let salt = UInt64(
                String(decoding: try Data(contentsOf: file), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
        else {
            throw ViewingTokenError.notASalt(path: file.path)
        }
        return salt
    }

    /// Writes a new random salt beside the file and renames it over (never through a symlink).
    private static func writeSalt(_ file: URL) throws -> UInt64 {
        let salt = SecureRandom.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(saltFileName).\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: Data(String(salt, radix: 16).utf8), attributes: [.posixPermissions: 0o600])
        else { throw ViewingTokenError.cannotWrite(path: temporary.path) }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ViewingTokenError.cannotReplace(path: file.path)
        }
        return salt
    }
}
