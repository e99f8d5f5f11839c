import Foundation
import HyzerDomain
import Testing

/// docs/formats.md: the op kinds 12 (alias), 13 (round receipt) and 14 (hole count) have one
/// encoding each, and a decoder refuses anything else.
@Suite("Op kinds 12 to 14")
struct PlayerOpKindsTests {
    static let player = UUID(uuidString: "39b3aca1-401e-8a52-bb3f-cb0e9231751d")!

    @Test func eachKindHasOneEncoding() throws {
        let payloads: [(OpPayload, String)] = [
            (.playerAliasAdded(playerID: Self.player, alias: "Mo"), "0c39b3aca1401e8a52bb3fcb0e9231751d024d6f"),
            (
                .roundReceipt(roundID: Self.player, signature: Array(repeating: 0xab, count: 32)),
                "0d39b3aca1401e8a52bb3fcb0e9231751d" + String(repeating: "ab", count: 32)
            ),
            (.courseHolesSet(courseID: Self.player, holes: 21), "0e39b3aca1401e8a52bb3fcb0e9231751d15"),
        ]
        for (payload, hex) in payloads {
            #expect(Hex.encode(payload.encoded()) == hex)
            #expect(try OpPayload(decoding: payload.encoded()) == payload)
        }
    }

    @Test func shortOrLongBodiesAreRefused() {
        let receipt = OpPayload.roundReceipt(roundID: Self.player, signature: Array(repeating: 1, count: 32)).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: receipt.dropLast()) }
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: receipt + [0]) }
        let holes = OpPayload.courseHolesSet(courseID: Self.player, holes: 9).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: holes + [0]) }
        let alias = OpPayload.playerAliasAdded(playerID: Self.player, alias: String(repeating: "x", count: 201)).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: alias) }
    }
}
