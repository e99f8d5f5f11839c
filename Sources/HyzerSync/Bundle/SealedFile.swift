import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// A bundle encrypted for a shared folder, so the folder's host sees sizes and names, not scores.
///
/// ```
/// "HYZS" ‖ version:u8 ‖ group:16 ‖ nonce:24 ‖ XChaCha20-Poly1305(fileKey, nonce, bundle, ad: the 21 header bytes)
/// fileKey = crypto_kdf(group secret, context "hyzrfile", id 1)
/// nonce   = BLAKE2b-256 keyed with fileKey of the bundle, first 24 bytes
/// ```
/// The nonce is derived from the plaintext (a synthetic IV): sealing needs no random source,
/// and the same bundle always seals to the same file.
enum SealedFile {
    static let magic = Array("HYZS".utf8)
    static let version: UInt8 = 1
    static let headerBytes = 4 + 1 + 16
    /// The largest sealed file: the largest bundle and the encryption's overhead.
    static let bytesMax = Bundle.bytesMax + headerBytes + SecretBox.nonceBytes + SecretBox.tagBytes

    static func seal(_ bundle: [UInt8], group: GroupMembership) -> [UInt8] {
        let key = GroupKeys(group).fileKey
        let header = magic + [version] + group.id.bytes
        let nonce = Array(Blake2b.hash256(bundle, key: key).prefix(SecretBox.nonceBytes))
        return header + nonce + SecretBox.seal(bundle, key: key, nonce: nonce, associatedData: header)
    }

    static func open(_ file: [UInt8], group: GroupMembership) throws(BundleError) -> [UInt8] {
        guard file.count >= headerBytes + SecretBox.nonceBytes + SecretBox.tagBytes, Array(file.prefix(4)) == magic else {
            throw .notABundle(reason: file.isEmpty ? "the file is empty" : "no sealed-file header")
        }
        guard file[4] == version else { throw .unsupportedVersion(file[4]) }
        guard let found = UUID(bytes: file[5..<headerBytes]) else { throw .notABundle(reason: "no sealed-file header") }
        guard found == group.id else { throw .wrongGroup(expected: group.id, found: found) }
        let header = Array(file.prefix(headerBytes))
        let nonce = Array(file[headerBytes..<headerBytes + SecretBox.nonceBytes])
        guard
            let plain = SecretBox.open(
                Array(file.suffix(from: headerBytes + SecretBox.nonceBytes)), key: GroupKeys(group).fileKey, nonce: nonce,
                associatedData: header)
        else { throw .authenticationFailed }
        return plain
    }
}
