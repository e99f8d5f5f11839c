import HyzerCrypto
import HyzerDomain
import HyzerKit

@testable import HyzerSync

/// Makes fuzzed bytes pass a bundle's sender signature, so the decoder behind it is reached:
/// the sender field is overwritten with `FuzzFixtures.sender` and the bytes are signed again.
public enum BundleResigning {
    /// Where the sender's key lies in a bundle: after the magic, the version and the group.
    static let senderRange = 21..<53

    /// `bytes` without their last 64 (the signature), sender replaced, signed again by the
    /// fixture sender; `nil` when the bytes are too short to hold a header.
    public static func resign(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= senderRange.upperBound + 64 else { return nil }
        var signed = Array(bytes.dropLast(64))
        signed.replaceSubrange(senderRange, with: FuzzFixtures.sender.publicKey)
        return signed + FuzzFixtures.sender.sign(Bundle.signedMessage(signed))
    }
}
