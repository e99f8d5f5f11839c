import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// Numbers from outside at the edges of their types (docs/security.md, "Decoders and
/// fuzzing"): sequences and stamps of 2^63 and 2^64 − 1 in bundles, vectors and sync messages,
/// and files in a shared folder with hostile times and sizes. Each is refused, or read, without
/// a trap (SIGILL) in the replica that reads it.
@Suite struct HostileNumberTests {
    /// Mallory's signed segment of `count` ops starting at `first`, linked to a made-up
    /// previous op (sequences wrap as a hostile writer's would).
    static func segment(
        _ keys: SigningKeyPair, first: UInt64, count: Int = 1, milliseconds: UInt64 = baseTime,
        payload: OpPayload = .playerCreated(displayName: "Mallory")
    ) -> AuthorSegment {
        let author = AuthorID(bytes: keys.publicKey)!
        var previous = first == 1 ? SignedOp.noPreviousHash : [UInt8](repeating: 7, count: 32)
        var ops: [SignedOp] = []
        for offset in 0..<count {
            let op = SignedOp(
                keys: keys, author: author, sequence: first &+ UInt64(offset), previousHash: previous,
                clock: HLCTimestamp(physicalMilliseconds: milliseconds), payload: payload)
            ops.append(op)
            previous = op.hash
        }
        return AuthorSegment(ops: ops)
    }

    static let refusedSequence = BundleError.notABundle(reason: "\(ByteDecodingError.outOfRange(field: "sequence"))")

    @Test(arguments: [
        (UInt64.max, 1), (UInt64(1) << 63, 1), (UInt64(Int64.max), 2), (UInt64.max - 1, 3),
    ])
    func aSegmentBeyondTheLargestSequenceRefusesTheBundleAndChangesNothing(first: UInt64, count: Int) throws {
        let reader = try Peer("reader", keySeed: 21)
        let mallory = try Peer("mallory", keySeed: 22)
        let before = try StoreState(reader.replica)
        let sealed = try mallory.sealedBundle([Self.segment(mallory.keys, first: first, count: count)])
        #expect(throws: Self.refusedSequence) { try BundleFiles.import(sealed, into: reader.replica) }
        #expect(try StoreState(reader.replica) == before)
    }

    /// The largest sequence a store holds is still read: the op waits above the gap below it.
    @Test func aSegmentEndingAtTheLargestSequenceIsRead() throws {
        let reader = try Peer("reader", keySeed: 21)
        let mallory = try Peer("mallory", keySeed: 22)
        let sealed = try mallory.sealedBundle([Self.segment(mallory.keys, first: UInt64(Int64.max) - 1, count: 2)])
        let report = try BundleFiles.import(sealed, into: reader.replica)
        #expect(report.segmentsPending == 1 && report.opsApplied == 0 && report.rejected.isEmpty)
    }

    @Test(arguments: [UInt64.max, UInt64(1) << 63])
    func aVectorBeyondTheLargestSequenceIsRefused(sequence: UInt64) throws {
        let mallory = try Peer("mallory", keySeed: 22)
        let bundle = DeltaBundle(
            groupID: testGroup.id, sender: mallory.author, senderVector: VersionVector([mallory.author: sequence]), segments: [])
        #expect(throws: BundleError.notABundle(reason: "\(ByteDecodingError.outOfRange(field: "vector sequence"))")) {
            try DeltaBundle(decoding: bundle.encoded(signedBy: mallory.replica.signature(of:)), expectedGroup: testGroup.id)
        }
        // Vectors cross a connection in `have`s, `holds` and a reconciliation's entries.
        let vector = VersionVector([mallory.author: sequence])
        for message in [SyncMessage.have(vector), .holds(vector), .reconcile(ReconcileStep(splits: [:], entries: [.root: vector]))] {
            #expect(throws: ByteDecodingError.outOfRange(field: "vector sequence")) { try SyncMessage(decoding: message.encoded()) }
        }
    }

    /// A member whose vector claims more of our ops than exist (the largest number there is)
    /// used to overflow `start + 1` while the folder sync chose what to write.
    @Test func aMemberVectorAtTheLargestNumberDoesNotOverflowTheChoiceOfWhatToWrite() throws {
        let author = AuthorID(bytes: seededKeys(23).publicKey)!
        let written = [BundleRanges.Range(author: author, first: 1, last: 10)]
        #expect(FolderSync.deltaStart(of: author, lacking: VersionVector([author: .max]), written: written) == .max)
        #expect(FolderSync.deltaStart(of: author, lacking: VersionVector([author: 0]), written: written) == 10)
        #expect(FolderSync.deltaStart(of: author, lacking: VersionVector([author: 12]), written: written) == 12)
    }

    /// Whoever shares the folder sets its files' times: one before 1970 used to trap the listing.
    @Test(arguments: [-1_000.0, -2_000_000_000.0, 30_000_000_000.0])
    func aFileDatedBefore1970OrCenturiesAheadIsListed(seconds: Double) throws {
        let shared = SharedDirectory()
        try FileManager.default.createDirectory(at: shared.directory.path("member"), withIntermediateDirectories: true)
        let file = shared.directory.path("member/old.hzb")
        try Data([1, 2, 3]).write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: file.path)
        let entries = try shared.folder.list("member")
        #expect(entries.map(\.name) == ["old.hzb"])
        #expect(entries.map(\.size) == [3])
    }

    @Test func aSealedFileWithAShortHeaderIsRefused() throws {
        let sealed = SealedFile.seal([1, 2, 3], group: testGroup)
        #expect(throws: BundleError.notABundle(reason: "no sealed-file header")) {
            _ = try SealedFile.open(Array(sealed.prefix(20)), group: testGroup)
        }
        #expect(throws: BundleError.authenticationFailed) {
            _ = try SealedFile.open(Array(sealed.dropLast()), group: testGroup)
        }
    }

    // MARK: Straight into ingest

    /// Segments handed to ingest without a bundle (as a stored pending segment or a future
    /// transport could): `AuthorSegment.lastSequence` and ingest's sequence arithmetic trap.
    @Test(arguments: [(UInt64.max, 1), (UInt64(1) << 63, 1), (UInt64(Int64.max), 2)])
    func ingestRefusesASegmentBeyondTheLargestSequence(first: UInt64, count: Int) throws {
        let reader = try Peer("reader", keySeed: 21)
        let before = try StoreState(reader.replica)
        let report = try reader.replica.ingest([Self.segment(seededKeys(22), first: first, count: count)])
        #expect(report.opsApplied == 0 && report.rejected.count == 1)
        #expect(try StoreState(reader.replica) == before)
    }

    /// A signed player or course op stamped 2^63 ms or later used to trap in the materializer's
    /// `Int64(stamp)`. Stamped that far ahead it is held (docs/store.md), and the store stays whole.
    @Test(arguments: [
        OpPayload.playerCreated(displayName: "Mallory"), .courseCreated(name: "Far Future", pars: [3, 3, 3]),
    ])
    func anOpStampedBeyondTheLargestMillisecondDoesNotTrap(payload: OpPayload) throws {
        let reader = try Peer("reader", keySeed: 21)
        let segment = Self.segment(seededKeys(22), first: 1, milliseconds: UInt64(1) << 63, payload: payload)
        let report = try BundleFiles.import(try reader.sealedBundle([segment]), into: reader.replica)
        #expect(report.opsApplied == 0 && report.rejected.isEmpty && report.segmentsHeld == 1)
        #expect(try reader.replica.verify().problems.isEmpty)
    }
}
