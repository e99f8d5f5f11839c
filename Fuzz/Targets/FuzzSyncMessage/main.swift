import FuzzDriver
import FuzzSupport
import HyzerSync

/// A decrypted session message. A message that decodes encodes to the same bytes (a `bye`
/// may be shortened on encoding, and an older build's hello is refused unread, so those two are
/// only decoded).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let message = try? SyncMessage(decoding: bytes) else { return 0 }
    switch message {
    case .bye, .olderHello: return 0
    default: break
    }
    FuzzFixtures.require(message.encoded() == bytes, "a decoded sync message encodes to its bytes")
    return 0
}

FuzzDriver.run(fuzz)
