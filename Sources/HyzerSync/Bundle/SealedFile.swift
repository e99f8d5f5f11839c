import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// A bundle encrypted for a shared folder, so the folder's host sees sizes and names, not scores.
///
/// ```
/// version 1 (epoch 0): "HYZS" ‖ 1 ‖ group:16 ‖ nonce:24 ‖ XChaCha20-Poly1305(fileKey, nonce, bundle, ad: the 21 header bytes)
/// version 2 (epoch ≥ 1): "HYZS" ‖ 2 ‖ group:16 ‖ epoch:u32 ‖ nonce:24 ‖ XChaCha20-Poly1305(…, ad: the 25 header bytes)
/// fileKey = crypto_kdf(the epoch's group secret, context "hyzrfile", id 1)
/// nonce   = BLAKE2b-256 keyed with fileKey of the bundle, first 24 bytes
/// ```
/// The nonce is derived from the plaintext (a synthetic IV): sealing needs no random source,
/// and the same bundle always seals to the same file. A file is sealed under the newest epoch
/// the writer holds; a group never rekeyed writes version 1, as before epochs existed.
enum SealedFile {
    static let magic = Array("HYZS".utf8)
    /// The header's bytes by version.
    static func headerBytes(version: UInt8) -> Int { version == 1 ? 4 + 1 + 16 : 4 + 1 + 16 + 4 }
    /// The largest sealed file: the largest bundle and the encryption's overhead.
    static let bytesMax = Bundle.bytesMax + headerBytes(version: 2) + SecretBox.nonceBytes + SecretBox.tagBytes

    static func seal(_ bundle: [UInt8], group: GroupMembership) -> [UInt8] {
        seal(bundle, group: group, epoch: group.epoch)
    }

    /// Sealed under `epoch`, which `group` must hold.
    static func seal(_ bundle: [UInt8], group: GroupMembership, epoch: UInt32) -> [UInt8] {
        let key = GroupKeys(secret: group.secrets[epoch]!).fileKey
        let header =
            epoch == 0 ? magic + [1] + group.id.bytes : magic + [2] + group.id.bytes + withUnsafeBytes(of: epoch.bigEndian) { Array($0) }
        let nonce = Array(Blake2b.hash256(bundle, key: key).prefix(SecretBox.nonceBytes))
        return header + nonce + SecretBox.seal(bundle, key: key, nonce: nonce, associatedData: header)
    }

    /// The bundle's bytes and the epoch it was sealed under.
    static func open(_ file: [UInt8], group: GroupMembership) throws(BundleError) -> (bundle: [UInt8], epoch: UInt32) {
        guard file.count >= 5, Array(file.prefix(4)) == magic else {
            throw .notABundle(reason: file.isEmpty ? "the file is empty" : "no sealed-file header")
        }
        guard file[4] == 1 || file[4] == 2 else { throw .unsupportedVersion(file[4]) }
        let headerBytes = headerBytes(version: file[4])
        guard file.count >= headerBytes + SecretBox.nonceBytes + SecretBox.tagBytes, let found = UUID(bytes: file[5..<21]) else {
            throw .notABundle(reason: "no sealed-file header")
        }
        guard found == group.id else { throw .wrongGroup(expected: group.id, found: found) }
        let epoch = file[4] == 1 ? 0 : file[21..<25].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let secret = group.secrets[epoch] else { throw .unknownEpoch(epoch, newest: group.epoch) }
        let header = Array(file.prefix(headerBytes))
        let nonce = Array(file[headerBytes..<headerBytes + SecretBox.nonceBytes])
        guard
            let plain = SecretBox.open(
                file[(headerBytes + SecretBox.nonceBytes)...], key: GroupKeys(secret: secret).fileKey, nonce: nonce,
                associatedData: header)
        else { throw .authenticationFailed }
        return (plain, epoch)
    }
}
