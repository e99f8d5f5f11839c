import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

/// The test vectors of docs/formats.md: the canonical bytes, hash and signature of fixed ops.
/// They were checked against independent BLAKE2b and Ed25519 implementations (Python's
/// hashlib and cryptography); a change here is a change of the format.
@Suite struct OpVectorTests {
    static let keys = SigningKeyPair(seed: [UInt8](repeating: 1, count: 32))
    static let author = AuthorID(bytes: keys.publicKey)!

    @Test func playerCreatedOp() throws {
        let op = SignedOp(
            keys: Self.keys, author: Self.author, sequence: 1, previousHash: SignedOp.noPreviousHash,
            clock: HLCTimestamp(physicalMilliseconds: 1_700_000_000_000, counter: 0), payload: .playerCreated(displayName: "Ann"))
        #expect(Self.author.hex == "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c")
        #expect(Hex.encode(op.tail) == "0000018bcfe56800000000000203416e6e")
        #expect(
            Hex.encode(SignedOp.body(author: op.author, sequence: op.sequence, previousHash: op.previousHash, tail: op.tail))
                == "018a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c0000000000000001"
                + String(repeating: "00", count: 32) + "0000018bcfe56800000000000203416e6e")
        #expect(Hex.encode(op.hash) == "39b3aca1401e7a523b3fcb0e9231751d52a767d62abfa94e3f21e7150d2ae9a3")
        #expect(
            Hex.encode(op.signature!)
                == "338f7b91114a3dae3cc40b6afbbaf02b75b33edc8a5450858027639221046e64f41902b9a9c2bb0393dc69a7a5d7fc5378963a029e60349f2d272ee193711304"
        )
        #expect(op.hasValidSignature)
        #expect(op.entityID.lowercased == "39b3aca1-401e-8a52-bb3f-cb0e9231751d")
        let score = SignedOp(
            keys: Self.keys, author: Self.author, sequence: 2, previousHash: op.hash,
            clock: HLCTimestamp(physicalMilliseconds: 1_700_000_000_500, counter: 1),
            payload: .scoreRecorded(
                ScoreRecord(
                    roundID: UUID(uuidString: "00000000-0000-8000-8000-000000000001")!, hole: 7,
                    player: .player(op.entityID), strokes: 3, supersedes: [], reportedBy: .player(op.entityID))))
        #expect(
            Hex.encode(score.tail)
                == "0000018bcfe569f4000000010a00000000000080008000000000000001070039b3aca1401e8a52bb3fcb0e9231751d0300010039b3aca1401e8a52bb3fcb0e9231751d"
        )
        #expect(Hex.encode(score.hash) == "c727383cb51177a559cea945c0fa1e1a9477f3c615cc706259a2de73463579a7")
        #expect(
            Hex.encode(score.signature!)
                == "c872ccc32e3618559eade2e8735edf03d074b77275d1fda34b6d6502770cc2082277512921c304bf8a2a9813010a82c465e02020ac5b02283c2992c183d8b20f"
        )
        // A flipped bit anywhere in the tail changes the hash, so the signature no longer holds.
        var tampered = score.tail
        tampered[20] ^= 1
        #expect(
            !SignedOp(author: score.author, sequence: 2, previousHash: op.hash, tail: tampered, signature: score.signature)
                .hasValidSignature)
    }

    /// docs/formats.md, kind 17, and the group id an organizer's key determines (checked with
    /// Python's hashlib).
    @Test func memberRemovedPayloadAndOrganizerGroupID() throws {
        let removal = OpPayload.memberRemoved(device: Self.author, through: 300)
        #expect(Hex.encode(removal.encoded()) == "11" + Self.author.hex + "ac02")
        #expect(try OpPayload(decoding: removal.encoded()) == removal)
        #expect(throws: ByteDecodingError.self) {
            try OpPayload(decoding: [0x11] + Self.author.bytes + [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
        }
        let group = GroupMembership.groupID(organizer: Self.author)
        #expect(group.lowercased == "b2b6f169-86ba-89b1-a644-5534fce4b5b8")
        #expect(GroupMembership.isOrganizer(Self.author, of: group))
    }
}
