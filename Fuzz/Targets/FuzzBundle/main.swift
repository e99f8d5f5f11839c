import FuzzDriver
import FuzzSupport
import HyzerDomain

@testable import HyzerSync

/// A decrypted bundle: decoded as it is (the sender's signature stops almost everything), then
/// with its sender replaced and signed again, so the vector and segment decoders are reached.
/// A bundle of the current version that decodes must encode to the very same bytes: the format
/// has one form. The same bytes are also read as a connection bundle (docs/formats.md), which
/// has no signature to stop them, and one that decodes must encode to them too.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    let sender = FuzzFixtures.author(FuzzFixtures.sender)
    if let connection = try? Bundle(connectionBytes: bytes, sender: sender, groupID: FuzzFixtures.group.id) {
        FuzzFixtures.require(connection.connectionEncoded() == bytes, "a decoded connection bundle encodes to its bytes")
        for segment in connection.segments { _ = try? segment.verifiedOps() }
    }
    _ = try? Bundle(decoding: bytes, expectedGroup: FuzzFixtures.group.id)
    guard let resigned = BundleResigning.resign(bytes),
        let bundle = try? Bundle(decoding: resigned, expectedGroup: FuzzFixtures.group.id)
    else { return 0 }
    // Bundles of an earlier version are read, and written in the current one.
    guard resigned[4] == Bundle.formatVersion else { return 0 }
    FuzzFixtures.require(bundle.encoded(signedBy: FuzzFixtures.sender.sign) == resigned, "a decoded bundle encodes to its bytes")
    for segment in bundle.segments { _ = try? segment.verifiedOps() }
    return 0
}

FuzzDriver.run(fuzz)
