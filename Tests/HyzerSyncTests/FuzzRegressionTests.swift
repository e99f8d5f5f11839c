import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// Inputs the fuzz targets found (docs/fuzzing.md), byte for byte, through the real decoders.
@Suite struct FuzzRegressionTests {
    /// FuzzSyncMessage: a `have` whose vector names one author at sequence 0 (then another at 3)
    /// decoded to the same vector as the message without that entry: two encodings of one
    /// message. A vector entry of 0 is refused.
    @Test func aSyncMessageVectorEntryOfZeroIsRefused() throws {
        let bytes = try #require(
            Hex.decode(
                "030281397753a87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8f01000000ed4928c628d1c2c6eae903389059956129"
                    + "59273a5c63f93636c14614ac8737d103"))
        #expect(throws: ByteDecodingError.outOfRange(field: "vector sequence")) { try SyncMessage(decoding: bytes) }
    }

    /// FuzzBundle: the same in a bundle's sender vector, once the target had signed it again
    /// with its sender (key seed 1) for its group.
    @Test func aBundleVectorEntryOfZeroIsRefused() throws {
        let input = try #require(
            Hex.decode(
                "48595a4201f022000000008000800000000000f0228139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b39401"
                    + "8139770ea87d01bc00000000000000000000000000000000000000000000000000008000f0228139770ea87d175f56a35466c34c7ecc"
                    + "cb8d8a91b4ee37a25df60f5b8fc9b394018a122d55ffe62b54092ca15277a3e544d56cac6cdc40adb3063d04"))
        let sender = seededKeys(1)
        var signed = Array(input.dropLast(64))
        signed.replaceSubrange(21..<53, with: sender.publicKey)
        let group = try #require(UUID(uuidString: "f0220000-0000-8000-8000-00000000f022"))
        #expect(throws: BundleError.notABundle(reason: "\(ByteDecodingError.outOfRange(field: "vector sequence"))")) {
            try DeltaBundle(decoding: signed + sender.sign(DeltaBundle.signedMessage(signed)), expectedGroup: group)
        }
    }
}
