import Foundation
import HyzerDomain
import Testing

/// docs/formats.md: kinds 20 and 23 (an invitation issued, with a verifier in 23) and 21 and 22
/// (a device admitted with one, with the token's proof in 22) have one encoding each, and their
/// values are bounded.
@Suite("Op kinds 20 to 23")
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

    static let verifier = [UInt8](repeating: 0xd4, count: 32)
    static let proof = [UInt8](repeating: 0xe5, count: 64)

    @Test func theKindsWithProofHaveOneEncodingEach() throws {
        let issued = OpPayload.inviteIssuedWithVerifier(key: Self.key, verifier: Self.verifier, expiresAt: 1_717_203_600_000, uses: 3)
        #expect(
            Hex.encode(issued.encoded())
                == "17" + String(repeating: "a1", count: 32) + String(repeating: "d4", count: 32) + "8085be8afd3103")
        #expect(try OpPayload(decoding: issued.encoded()) == issued)
        let admitted = OpPayload.memberAdmittedWithProof(invite: Self.invite, device: Self.device, proof: Self.proof)
        #expect(
            Hex.encode(admitted.encoded())
                == "16" + String(repeating: "b2", count: 16) + String(repeating: "c3", count: 32) + String(repeating: "e5", count: 64))
        #expect(try OpPayload(decoding: admitted.encoded()) == admitted)
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: admitted.encoded().dropLast()) }
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: issued.encoded() + [0]) }
    }

    @Test func theJoinProofMessageIsFixed() {
        let message = JoinProof.message(
            group: UUID(uuidString: "b2b6f169-86ba-89b1-a644-5534fce4b5b8")!, invite: Self.invite, device: Self.device)
        #expect(
            Hex.encode(message)
                == Hex.encode(Array("hyzer-join/v1".utf8)) + "00" + "b2b6f16986ba89b1a6445534fce4b5b8" + String(repeating: "b2", count: 16)
                + String(repeating: "c3", count: 32))
    }

    @Test(arguments: [0, 1_001])
    func usesOutsideOneToAThousandAreRefused(uses: Int) {
        let bytes = OpPayload.inviteIssued(key: Self.key, expiresAt: 1, uses: uses).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: bytes) }
    }

    @Test func anExpiryBeyondTheLargestStampAndShortFieldsAreRefused() {
        let far = OpPayload.inviteIssued(key: Self.key, expiresAt: UInt64(Int64.max) + 1, uses: 1).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: far) }
        let admitted = OpPayload.memberAdmitted(invite: Self.invite, device: Self.device).encoded()
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: admitted.dropLast()) }
        #expect(throws: ByteDecodingError.self) { try OpPayload(decoding: admitted + [0]) }
    }
}
