import FuzzDriver
import FuzzSupport
import HyzerDomain
import HyzerKit

/// An op's payload, as ingest and the views decode it, and the same bytes as an author
/// segment. Whatever decodes encodes to the very same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    if let payload = try? OpPayload(decoding: bytes) {
        FuzzFixtures.require(payload.encoded() == bytes, "a decoded payload encodes to its bytes")
    }
    if let segment = try? AuthorSegment(decoding: bytes) {
        FuzzFixtures.require(segment.encoded() == bytes, "a decoded segment encodes to its bytes")
    }
    return 0
}

FuzzDriver.run(fuzz)
