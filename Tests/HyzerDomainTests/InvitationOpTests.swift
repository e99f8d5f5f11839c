import Foundation
import HyzerDomain
import Testing

/// docs/formats.md: kinds 20 (an invitation issued) and 21 (a device admitted with one) have one
/// encoding each, and their values are bounded.
@Suite("Op kinds 20 and 21")
struct InvitationOpTests {
    static let key = [UInt8](repeating: 0xa1, count: 32)
    static let invite = [UInt8](repeating: 0xb2, count: 16)
    static let device = AuthorID(bytes: [UInt8](repeating: 0xc3, count: 32))!

    @Test func oneEncodingEach() throws {
        let issued = OpPayload.inviteIssued(key: Self.key, expiresAt: 1_717_203_600_000, uses: 3)
        #expect(Hex.encode(issued.encoded()) == "14" + String(repeating: "a1", count: 32) + "8085be8afd3103")
        #expect(try OpPayload(decoding: issued.encoded()) == issued)
        let admitted = OpPayload.memberAdmitted(invite: Self.invite, device: Self.device)
        #expect(Hex.encode(admitted.encoded()) == "15" + String(repeating: "b2", count: 16) + String(repeating: "c3", count: 32))
        #expect(try OpPayload(decoding: admitted.encoded()) == admitted)
    }

    @Test(arguments: [0, 1_001])
    func usesOutsideOneToAThousandAreRefused(uses: Int) {
        let bytes = OpPayload.inviteIssued(key: Self.key, expiresAt: 1, uses: uses).encoded()
        #expect(throws: DecodingError.self) { try OpPayload(decoding: bytes) }
    }

    @Test func anExpiryBeyondTheLargestStampAndShortFieldsAreRefused() {
        let far = OpPayload.inviteIssued(key: Self.key, expiresAt: UInt64(Int64.max) + 1, uses: 1).encoded()
        #expect(throws: DecodingError.self) { try OpPayload(decoding: far) }
        let admitted = OpPayload.memberAdmitted(invite: Self.invite, device: Self.device).encoded()
        #expect(throws: DecodingError.self) { try OpPayload(decoding: admitted.dropLast()) }
        #expect(throws: DecodingError.self) { try OpPayload(decoding: admitted + [0]) }
    }
}
