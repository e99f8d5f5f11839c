import Foundation
import HyzerDomain
import HyzerKit

/// Why a bundle was refused as a whole. A refused bundle changes nothing.
public enum BundleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a hyzer-peer file at all, or cut short.
    case notABundle(reason: String)
    /// A format version this build does not read.
    case unsupportedVersion(UInt8)
    /// A bundle of another group.
    case wrongGroup(expected: UUID, found: UUID)
    /// The encryption's authentication failed: the file was changed, or another group's key made it.
    case authenticationFailed
    /// The sender's signature over the bundle does not verify.
    case senderSignatureInvalid(sender: AuthorID)
    /// Found in another author's directory than its sender's.
    case misplaced(sender: AuthorID, directory: String)
    /// The file's name is not the hash of its contents: it is partial or damaged.
    case contentHashMismatch
    /// Larger than any bundle may be.
    case tooLarge(bytes: Int)
    /// Sealed under a group key (epoch) this replica does not hold.
    case unknownEpoch(UInt32, newest: UInt32)
    /// Its sender was removed from the group, or sealed it under an older key that the newest
    /// was not sealed to (someone who kept an old secret).
    case senderNotAdmitted(sender: AuthorID, removed: Bool)

    /// Why the bundle was refused, in one sentence.
    public var description: String {
        switch self {
        case .notABundle(let reason): "not a hyzer-peer bundle (\(reason))"
        case .unsupportedVersion(let version): "bundle format version \(version) is newer than this hyzer-peer reads; upgrade hyzer-peer"
        case .wrongGroup(let expected, let found):
            "it belongs to group \(found.lowercased), not this replica's group \(expected.lowercased)"
        case .authenticationFailed: "decryption failed: the file was changed, truncated, or made with another group's key"
        case .senderSignatureInvalid(let sender): "the signature of its sender \(sender.short) does not verify"
        case .misplaced(let sender, let directory): "it was sent by \(sender.short) but lies in \(directory)'s directory"
        case .contentHashMismatch: "its contents do not match its name: it is partial or damaged"
        case .tooLarge(let bytes): "it is \(bytes) bytes, more than the \(Bundle.bytesMax)-byte limit"
        case .unknownEpoch(let epoch, let newest):
            epoch > newest
                ? "it is sealed under group key \(epoch), newer than this replica holds (\(newest)); it is read once the organizer's rekey arrives"
                : "it is sealed under group key \(epoch), older than the key this replica joined with (\(newest)); its ops reach it in newer files"
        case .senderNotAdmitted(let sender, let removed):
            removed
                ? "it was written by device \(sender.short), which was removed from the group; it is not read"
                : "it was written by device \(sender.short) under an old group key that the newest was not sealed to; it is not read"
        }
    }
}
