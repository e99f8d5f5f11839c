import Foundation
import HyzerCrypto
import HyzerDomain

/// The secret key file: the 64-byte Ed25519 secret key as hexadecimal text, mode 0600.
///
/// It is created 0600 with `O_CREAT | O_EXCL | O_NOFOLLOW` under a random temporary name and
/// renamed into place, so it is never readable by others, not even for an instant. `open`
/// refuses a key file that others can read or write, as ssh does (docs/store.md).
enum KeyFile {
    /// A key file is 129 bytes; anything much larger is not one and is not read.
    static let maximumBytes = 4096

    static func write(_ keys: SigningKeyPair, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent("." + url.lastPathComponent + "." + Hex.encode(SecureRandom.bytes(8)) + ".tmp")
        let text = Array((Hex.encode(keys.secretKey) + "\n").utf8)
        let descriptor = SystemCall.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ReplicaError.storage(detail: "cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        let written = text.withUnsafeBytes { SystemCall.write(descriptor, $0.baseAddress!, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == text.count, synced, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw ReplicaError.storage(detail: "cannot write the key into \(url.path)")
        }
    }

    static func read(from url: URL) throws -> SigningKeyPair {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReplicaError.badKeyFile(path: url.path, detail: "missing or unreadable") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= maximumBytes else {
            throw ReplicaError.badKeyFile(path: url.path, detail: "not an Ed25519 secret key")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { raw in raw.baseAddress.map { SystemCall.read(descriptor, $0, raw.count) } ?? 0 }
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let decoded = Hex.decode(text), let keys = SigningKeyPair(secretKey: decoded) else {
            throw ReplicaError.badKeyFile(path: url.path, detail: "not an Ed25519 secret key")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw ReplicaError.badKeyFile(
                path: url.path,
                detail:
                    "other users can read or write it (mode \(String(mode, radix: 8))); run `chmod 600 \(url.path)` if nobody else could have copied it"
            )
        }
        return keys
    }
}
