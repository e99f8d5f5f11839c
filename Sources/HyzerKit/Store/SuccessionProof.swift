import HyzerCrypto
import HyzerDomain

/// A predecessor's signature handing its place to a successor (`device continue`, op kind 15):
/// what a device shows a member that has not received its succession op yet, so that the member
/// admits it under an epoch sealed to the predecessor (docs/sync-protocol.md, "Handshake").
public struct SuccessionProof: Hashable, Sendable {
    /// A predecessor's key and its signature.
    public static let byteCount = 32 + 64
    /// The most a handshake carries: the nearest predecessors of a device continued more often.
    public static let chainMax = 4

    /// The device's earlier key.
    public let predecessor: AuthorID
    /// Ed25519(predecessor, `DeviceSuccession.message(successor:)`).
    public let signature: [UInt8]

    /// A proof from its parts, unchecked: see `proves(successor:)`.
    public init(predecessor: AuthorID, signature: [UInt8]) {
        self.predecessor = predecessor
        self.signature = signature
    }

    /// Whether the predecessor signed `successor` as its successor.
    public func proves(successor: AuthorID) -> Bool {
        signature.count == 64
            && Ed25519.verify(signature: signature, of: DeviceSuccession.message(successor: successor), publicKey: predecessor.bytes)
    }

    /// The proof's 96 bytes: the predecessor's key, then the signature.
    public var bytes: [UInt8] { predecessor.bytes + signature }

    /// Decodes `chain`, a whole number of proofs, at most `chainMax`; `nil` otherwise.
    public static func chain(decoding bytes: ArraySlice<UInt8>) -> [SuccessionProof]? {
        guard bytes.count % byteCount == 0, bytes.count / byteCount <= chainMax else { return nil }
        return stride(from: bytes.startIndex, to: bytes.endIndex, by: byteCount).compactMap { start in
            AuthorID(bytes: Array(bytes[start..<start + 32])).map {
                SuccessionProof(predecessor: $0, signature: Array(bytes[start + 32..<start + byteCount]))
            }
        }
    }
}
