import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/replication.md, "Delta bundles" and "Shared-folder transport": the bundle format, its
/// sealing for a group, and that a bundle failing any check as a whole changes nothing.
@Suite struct BundleFormatTests {
    /// The sealed file's layout: magic 4, version 1, group 16, nonce 24, then the box.
    static let sealedHeader = 21
    static let sealedMinimum = 21 + 24 + 16
    /// The plain bundle's fixed part: magic 4, version 1, group 16, sender 32, … signature 64.
    static let plainMinimum = 4 + 1 + 16 + 32 + 64

    /// A sender whose log is one op (its device record) and a receiver that lacks it.
    final class Pair: Sendable {
        let sender: Peer
        let receiver: Peer

        init() throws {
            sender = try Peer("sender", keySeed: 1)
            receiver = try Peer("receiver", owner: "Rex", keySeed: 2, start: baseTime + 1_000)
        }

        /// The sender's bundle of its whole log, unsealed and signed.
        func plainBundle() throws -> [UInt8] {
            let bundle = DeltaBundle(
                groupID: testGroup.id, sender: sender.author, senderVector: try sender.replica.versionVector(),
                segments: try sender.replica.delta(above: VersionVector()))
            return bundle.encoded(signedBy: sender.replica.signature(of:))
        }
    }

    /// What importing a file did.
    enum Outcome: Equatable {
        case refused(BundleError)
        case other(String)
    }

    /// Imports `file` into `replica`: the `BundleError` it throws, or what happened instead.
    static func refusal(_ file: [UInt8], into replica: Replica) -> Outcome {
        do {
            let report = try BundleFiles.import(file, into: replica)
            return .other("accepted: \(report)")
        } catch let error as BundleError {
            return .refused(error)
        } catch {
            return .other("threw a non-bundle error: \(error)")
        }
    }

    // MARK: Round trip

    @Test func aBundleRoundTripsThroughItsEncoding() throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 3)
        let ben = try Peer("ben-phone", owner: "Ben", keySeed: 4, start: baseTime + 500)
        try ann.replica.addPlayer(name: "Cleo")
        _ = try BundleFiles.import(try ben.export(), into: ann.replica)

        let bundle = DeltaBundle(
            groupID: testGroup.id, sender: ann.author, senderVector: try ann.replica.versionVector(),
            segments: try ann.replica.delta(above: VersionVector()))
        #expect(bundle.segments.count == 2)
        let bytes = bundle.encoded(signedBy: ann.replica.signature(of:))
        #expect(Array(bytes.prefix(5)) == Array("HYZB".utf8) + [2])

        let decoded = try DeltaBundle(decoding: bytes, expectedGroup: testGroup.id)
        #expect(decoded == bundle)
        #expect(decoded.senderVector == (try ann.replica.versionVector()))
        // One encoding per bundle, and Ed25519 signatures are deterministic.
        #expect(decoded.encoded(signedBy: ann.replica.signature(of:)) == bytes)

        // A bundle without segments publishes the sender's vector.
        let vectorOnly = DeltaBundle(groupID: testGroup.id, sender: ann.author, senderVector: bundle.senderVector, segments: [])
        #expect(
            try DeltaBundle(decoding: vectorOnly.encoded(signedBy: ann.replica.signature(of:)), expectedGroup: testGroup.id) == vectorOnly)
    }

    /// docs/formats.md, "Connection bundle": its bytes, byte for byte.
    @Test func theConnectionBundleTestVector() throws {
        let author = try #require(AuthorID(bytes: [UInt8](repeating: 0x11, count: 32)))
        let hash: [UInt8] = [0xc7, 0x27, 0x38, 0x3c, 0xb5, 0x11, 0x77, 0xa5]
        let vector = VersionVector(entries: [author: .init(sequence: 2, hashPrefix: hash)])
        let bundle = DeltaBundle(groupID: testGroup.id, sender: author, senderVector: vector, segments: [])
        let bytes = bundle.connectionEncoded()
        #expect(bytes == [3, 1] + [UInt8](repeating: 0x11, count: 32) + [2, 1] + hash + [0])
        #expect(try DeltaBundle(connectionBytes: bytes, sender: author, groupID: testGroup.id) == bundle)
    }

    /// A connection bundle with segments round-trips, its sender and group those the connection
    /// gives; a file's signed bundle, an empty one, another version and trailing bytes are refused.
    @Test func aConnectionBundleRoundTripsAndAFilesBundleIsRefused() throws {
        let pair = try Pair()
        let sender = pair.sender
        let bundle = DeltaBundle(
            groupID: testGroup.id, sender: sender.author, senderVector: try sender.replica.versionVector(),
            segments: try sender.replica.delta(above: VersionVector()))
        let bytes = bundle.connectionEncoded()
        #expect(try DeltaBundle(connectionBytes: bytes, sender: sender.author, groupID: testGroup.id) == bundle)
        #expect(
            bytes.count - 1 + Self.plainMinimum == (try pair.plainBundle()).count,
            "the file's header and signature left out, a version byte in")
        let refusals: [([UInt8], BundleError)] = [
            (try pair.plainBundle(), .notABundle(reason: "a file's signed bundle, where a connection bundle belongs")),
            ([], .notABundle(reason: "empty")),
            ([4] + bytes.dropFirst(), .unsupportedVersion(4)),
        ]
        for (refused, error) in refusals {
            #expect(throws: error) { _ = try DeltaBundle(connectionBytes: refused, sender: sender.author, groupID: testGroup.id) }
        }
        for malformed in [bytes + [0], Array(bytes.dropLast())] {
            #expect(throws: BundleError.self) {
                _ = try DeltaBundle(connectionBytes: malformed, sender: sender.author, groupID: testGroup.id)
            }
        }
    }

    @Test func anExportCarriesEveryOpAndIsSealed() throws {
        let ann = try Peer("ann-phone", owner: "Annika Sörenstam", keySeed: 5)
        try ann.replica.addPlayer(name: "Ben Hogan")
        try ann.replica.addCourse(name: "Secret Meadow", pars: [3, 4, 5])
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 6, start: baseTime + 1_000)

        let file = try ann.export()
        #expect(Array(file.prefix(5)) == Array("HYZS".utf8) + [1])
        #expect(try ann.export() == file, "sealing needs no random source: the same bundle seals to the same file")
        for secret in ["Annika Sörenstam", "Ben Hogan", "Secret Meadow", "ann-phone"] {
            #expect(!contains(file, Array(secret.utf8)), "\(secret) is readable in the sealed file")
        }

        let report = try BundleFiles.import(file, into: rex.replica)
        #expect(report.opsApplied == 4 && report.opsAlreadyHeld == 0 && report.segmentsPending == 0 && report.rejected.isEmpty)
        #expect(try rex.replica.versionVector()[ann.author] == 4)
        #expect(Set(try rex.replica.players().map(\.displayName)) == ["Annika Sörenstam", "Ben Hogan", "Rex"])
        #expect(try rex.replica.courses().contains { $0.name == "Secret Meadow" })
        #expect(try rex.replica.verify().isIntact)
    }

    // MARK: Damage

    /// Every byte of a sealed bundle, flipped one bit at a time (low and high bit): each
    /// damaged file is refused with the check that catches it, and nothing changes.
    @Test func everySingleByteFlipOfASealedBundleIsRefused() throws {
        let pair = try Pair()
        let file = try pair.sender.export()
        #expect(file.count < 400, "a small bundle keeps this test fast: \(file.count) bytes")
        let before = try StoreState(pair.receiver.replica)

        var wrong: [String] = []
        for position in file.indices {
            for mask: UInt8 in [0x01, 0x80] {
                var damaged = file
                damaged[position] ^= mask
                let expected: BundleError =
                    switch position {
                    case 0..<4: .notABundle(reason: "no sealed-file header")
                    case 4: .unsupportedVersion(damaged[4])
                    case 5..<Self.sealedHeader: .wrongGroup(expected: testGroup.id, found: UUID(bytes: damaged[5..<21])!)
                    default: .authenticationFailed
                    }
                let outcome = Self.refusal(damaged, into: pair.receiver.replica)
                if outcome != .refused(expected) { wrong.append("byte \(position) ^ \(mask): \(outcome)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(try StoreState(pair.receiver.replica) == before)
        #expect(try pair.receiver.replica.status().pendingOps == 0)

        // The intact file still goes in.
        let report = try BundleFiles.import(file, into: pair.receiver.replica)
        #expect(report.opsApplied == 1 && report.rejected.isEmpty)
    }

    /// Every byte of the plain bundle flipped before sealing (so the encryption is intact, as
    /// a group member could make it): the sender's signature catches everything after the
    /// header, and nothing changes.
    @Test func everySingleByteFlipOfAPlainBundleIsRefused() throws {
        let pair = try Pair()
        let plain = try pair.plainBundle()
        let group = try pair.receiver.replica.requireGroup()
        let before = try StoreState(pair.receiver.replica)

        var wrong: [String] = []
        for position in plain.indices {
            var damaged = plain
            damaged[position] ^= 0x04
            let expected: BundleError =
                switch position {
                case 0..<4: .notABundle(reason: "no bundle header")
                case 4: .unsupportedVersion(damaged[4])
                case 5..<21: .wrongGroup(expected: testGroup.id, found: UUID(bytes: damaged[5..<21])!)
                default: .senderSignatureInvalid(sender: AuthorID(bytes: Array(damaged[21..<53]))!)
                }
            let outcome = Self.refusal(SealedFile.seal(damaged, group: group), into: pair.receiver.replica)
            if outcome != .refused(expected) { wrong.append("byte \(position): \(outcome)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(try StoreState(pair.receiver.replica) == before)
        #expect(try BundleFiles.import(SealedFile.seal(plain, group: group), into: pair.receiver.replica).opsApplied == 1)
    }

    @Test func everyTruncationIsRefused() throws {
        let pair = try Pair()
        let file = try pair.sender.export()
        let plain = try pair.plainBundle()
        let before = try StoreState(pair.receiver.replica)

        var wrong: [String] = []
        for length in 0..<file.count {
            let expected: BundleError =
                switch length {
                case 0: .notABundle(reason: "the file is empty")
                case 1..<Self.sealedMinimum: .notABundle(reason: "no sealed-file header")
                default: .authenticationFailed
                }
            let outcome = Self.refusal(Array(file.prefix(length)), into: pair.receiver.replica)
            if outcome != .refused(expected) { wrong.append("sealed, \(length) bytes: \(outcome)") }
        }
        // Cut short before sealing: the sender's signature is no longer at the end.
        for length in 0..<plain.count {
            let expected: BundleError =
                length < Self.plainMinimum
                ? .notABundle(reason: "no bundle header") : .senderSignatureInvalid(sender: pair.sender.author)
            let outcome = Self.refusal(SealedFile.seal(Array(plain.prefix(length)), group: testGroup), into: pair.receiver.replica)
            if outcome != .refused(expected) { wrong.append("plain, \(length) bytes: \(outcome)") }
        }
        // Bytes added at the end are damage too.
        for extra in [[0x00], [0x01, 0x02, 0x03], [UInt8](repeating: 0xff, count: 64)] as [[UInt8]] {
            let outcome = Self.refusal(file + extra, into: pair.receiver.replica)
            if outcome != .refused(.authenticationFailed) { wrong.append("\(extra.count) bytes appended: \(outcome)") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(try StoreState(pair.receiver.replica) == before)
        #expect(try BundleFiles.import(file, into: pair.receiver.replica).opsApplied == 1)
    }

    // MARK: Groups

    @Test func anotherGroupsBundleIsRefused() throws {
        let outsider = try Peer("outsider", owner: "Otto", keySeed: 7, group: otherGroup)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 8, start: baseTime + 1_000)
        let before = try StoreState(rex.replica)

        // Sealed for the other group.
        let foreign = try outsider.export()
        let error = #expect(throws: BundleError.self) { try BundleFiles.import(foreign, into: rex.replica) }
        #expect(error == .wrongGroup(expected: testGroup.id, found: otherGroup.id))
        #expect(error?.description.contains(otherGroup.id.lowercased) == true)

        // The other group's file with our group's id written into its header: the key differs.
        var relabelled = foreign
        relabelled.replaceSubrange(5..<21, with: testGroup.id.bytes)
        #expect(throws: BundleError.authenticationFailed) { try BundleFiles.import(relabelled, into: rex.replica) }

        // Sealed with our key, but the bundle inside names the other group (a member cannot
        // pass another group's bundle off as ours).
        let inner = DeltaBundle(
            groupID: otherGroup.id, sender: outsider.author, senderVector: try outsider.replica.versionVector(),
            segments: try outsider.replica.delta(above: VersionVector()))
        let resealed = SealedFile.seal(inner.encoded(signedBy: outsider.replica.signature(of:)), group: testGroup)
        #expect(throws: BundleError.wrongGroup(expected: testGroup.id, found: otherGroup.id)) {
            try BundleFiles.import(resealed, into: rex.replica)
        }
        #expect(try StoreState(rex.replica) == before)

        // A replica of no group cannot import at all, and says it needs one.
        let loner = try Peer("loner", keySeed: 9, group: nil)
        #expect(throws: GroupError.noGroup(.sync)) { try BundleFiles.import(foreign, into: loner.replica) }
    }

    // MARK: The sender

    @Test func aBundleWhoseSenderSignatureIsBrokenIsRefused() throws {
        let pair = try Pair()
        let mallory = try Peer("mallory", keySeed: 10)
        let plain = try pair.plainBundle()
        let before = try StoreState(pair.receiver.replica)

        // The signature's last byte changed.
        var broken = plain
        broken[broken.count - 1] ^= 0x01
        #expect(throws: BundleError.senderSignatureInvalid(sender: pair.sender.author)) {
            _ = try DeltaBundle(decoding: broken, expectedGroup: testGroup.id)
        }
        let error = #expect(throws: BundleError.self) {
            try BundleFiles.import(SealedFile.seal(broken, group: testGroup), into: pair.receiver.replica)
        }
        #expect(error == .senderSignatureInvalid(sender: pair.sender.author))
        #expect(error?.description.contains(pair.sender.author.short) == true)

        // Naming the sender, signed by someone else.
        let impostor = DeltaBundle(
            groupID: testGroup.id, sender: pair.sender.author, senderVector: try pair.sender.replica.versionVector(),
            segments: try pair.sender.replica.delta(above: VersionVector()))
        let forged = SealedFile.seal(impostor.encoded(signedBy: mallory.replica.signature(of:)), group: testGroup)
        #expect(throws: BundleError.senderSignatureInvalid(sender: pair.sender.author)) {
            try BundleFiles.import(forged, into: pair.receiver.replica)
        }

        // Signed, but with a byte the format does not allow before the signature.
        let body = Array(plain.dropLast(64)) + [0]
        let padded = body + pair.sender.replica.signature(of: DeltaBundle.signedMessage(body))
        let paddedError = #expect(throws: BundleError.self) {
            try BundleFiles.import(SealedFile.seal(padded, group: testGroup), into: pair.receiver.replica)
        }
        if case .notABundle = paddedError {} else { Issue.record("expected notABundle, got \(String(describing: paddedError))") }

        #expect(try StoreState(pair.receiver.replica) == before)
        #expect(try BundleFiles.import(pair.sender.export(), into: pair.receiver.replica).opsApplied == 1)
    }

    /// A bundle of at least `signatureCheckedBesideBytes` has its signature checked on one thread
    /// while its body is decoded on another: it decodes to the same bundle, and refuses exactly
    /// as a small one does, a broken signature before a broken body.
    @Test func aLargeBundleIsAuthenticatedBesideItsDecodingAndRefusedTheSameWay() throws {
        let pair = try Pair()
        let tails = (0..<100).map { index in [UInt8](repeating: UInt8(index), count: 1_000) }
        let segment = AuthorSegment(
            author: pair.sender.author, firstSequence: 1, previousHash: SignedOp.noPreviousHash, tails: tails,
            lastSignature: [UInt8](repeating: 7, count: 64))
        let bundle = DeltaBundle(
            groupID: testGroup.id, sender: pair.sender.author, senderVector: VersionVector([pair.sender.author: 100]),
            segments: [segment])
        let plain = bundle.encoded(signedBy: pair.sender.replica.signature(of:))
        #expect(plain.count - 64 >= DeltaBundle.signatureCheckedBesideBytes)
        #expect(try DeltaBundle(decoding: plain, expectedGroup: testGroup.id) == bundle)

        let invalid = BundleError.senderSignatureInvalid(sender: pair.sender.author)
        var brokenSignature = plain
        brokenSignature[brokenSignature.count - 1] ^= 0x01
        #expect(throws: invalid) { try DeltaBundle(decoding: brokenSignature, expectedGroup: testGroup.id) }
        for position in stride(from: 53, to: plain.count - 64, by: 997) {
            var damaged = plain
            damaged[position] ^= 0x04
            #expect(throws: invalid) { try DeltaBundle(decoding: damaged, expectedGroup: testGroup.id) }
        }

        // A body the format does not allow: refused as not a bundle when signed, as forged when not.
        let body = Array(plain.dropLast(64)) + [0]
        let padded = body + pair.sender.replica.signature(of: DeltaBundle.signedMessage(body))
        let paddedError = #expect(throws: BundleError.self) { try DeltaBundle(decoding: padded, expectedGroup: testGroup.id) }
        if case .notABundle = paddedError {} else { Issue.record("expected notABundle, got \(String(describing: paddedError))") }
        var paddedAndForged = padded
        paddedAndForged[paddedAndForged.count - 1] ^= 0x01
        #expect(throws: invalid) { try DeltaBundle(decoding: paddedAndForged, expectedGroup: testGroup.id) }
    }

    @Test func aNewerFormatVersionAsksForAnUpgrade() throws {
        let pair = try Pair()
        var file = try pair.sender.export()
        file[4] = 3
        let error = #expect(throws: BundleError.unsupportedVersion(3)) { try BundleFiles.import(file, into: pair.receiver.replica) }
        #expect(error?.description.contains("upgrade") == true)

        var plain = try pair.plainBundle()
        plain[4] = 3
        #expect(throws: BundleError.unsupportedVersion(3)) {
            try BundleFiles.import(SealedFile.seal(plain, group: testGroup), into: pair.receiver.replica)
        }
        #expect(try pair.receiver.replica.versionVector()[pair.sender.author] == 0)
    }
}
