import Foundation
import HyzerDomain
import Testing

/// docs/formats.md: kind 19 (an imported UDisc round's dates) has one encoding, and its dates are
/// bounded like names.
@Suite("Op kind 19")
struct RoundImportedOpTests {
    static let round = UUID(uuidString: "39b3aca1-401e-8a52-bb3f-cb0e9231751d")!

    @Test func oneEncoding() throws {
        let payload = OpPayload.roundImported(roundID: Self.round, startDate: "2024-06-16 1322", endDate: "")
        #expect(Hex.encode(payload.encoded()) == "1339b3aca1401e8a52bb3fcb0e9231751d0f323032342d30362d3136203133323200")
        #expect(try OpPayload(decoding: payload.encoded()) == payload)
    }

    @Test func longDatesAndTrailingBytesAreRefused() {
        let long = OpPayload.roundImported(roundID: Self.round, startDate: String(repeating: "9", count: 201), endDate: "").encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: long) }
        let payload = OpPayload.roundImported(roundID: Self.round, startDate: "a", endDate: "b").encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: payload + [0]) }
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: payload.dropLast()) }
    }
}
