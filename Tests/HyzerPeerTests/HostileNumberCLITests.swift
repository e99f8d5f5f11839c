import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

/// A crafted bundle used to crash every peer that read it (SIGILL): a segment at sequence
/// 2^64 − 1 or 2^63, or an op stamped 2^63 ms, through `import` and `sync --folder`.
/// Each runs the built binary and requires a clean refusal: exit 1 or 0, never a signal.
@Suite struct HostileNumberCLITests {
    let directory = TemporaryDirectory("hostile-number")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }
    let mallory = SigningKeyPair(seed: [UInt8](repeating: 0x66, count: SigningKeyPair.seedBytes))
    var malloryID: AuthorID { AuthorID(bytes: mallory.publicKey)! }

    /// A store in a group, and the group (read from the store, as a member holds it).
    func prepare() throws -> GroupMembership {
        try cli.run("init", "--name", "phone", "--owner", "Ann")
        try cli.run("group", "create")
        return try #require(try Replica.open(at: directory.path("phone")).group())
    }

    /// Mallory's sealed bundle with one signed op at `sequence`, stamped `milliseconds`.
    func crafted(_ group: GroupMembership, sequence: UInt64, milliseconds: UInt64 = 1_717_200_000_000) -> [UInt8] {
        let op = SignedOp(
            keys: mallory, author: malloryID, sequence: sequence,
            previousHash: sequence == 1 ? SignedOp.noPreviousHash : [UInt8](repeating: 7, count: 32),
            clock: HLCTimestamp(physicalMilliseconds: milliseconds), payload: .playerCreated(displayName: "Mallory"))
        let bundle = HyzerSync.Bundle(
            groupID: group.id, sender: malloryID, senderVector: VersionVector(), segments: [AuthorSegment(ops: [op])])
        return BundleFiles.seal(bundle.encoded(signedBy: { mallory.sign($0) }), group: group)
    }

    @Test(arguments: [UInt64.max, UInt64(1) << 63])
    func importRefusesASegmentBeyondTheLargestSequence(sequence: UInt64) throws {
        let group = try prepare()
        let file = directory.path("crafted.hzb")
        try Data(crafted(group, sequence: sequence)).write(to: file)
        let before = try cli.digest()
        let result = try cli.run("import", file.path)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: \(file.path): not a hyzer-peer bundle (outOfRange(field: "sequence")); nothing was imported from it

                """)
        #expect(try cli.digest() == before)
    }

    /// The crafted bundle lies in the shared folder: every later `sync --folder` reads it again.
    @Test(arguments: [UInt64.max, UInt64(1) << 63])
    func folderSyncRefusesASegmentBeyondTheLargestSequenceRunAfterRun(sequence: UInt64) throws {
        let group = try prepare()
        let folder = directory.path("folder")
        let sealed = crafted(group, sequence: sequence)
        let member = folder.appendingPathComponent("hyzer/\(group.id.lowercased)/\(malloryID.hex)")
        try FileManager.default.createDirectory(at: member, withIntermediateDirectories: true)
        let name = Hex.encode(Blake2b.hash256(sealed)) + ".hzb"
        try Data(sealed).write(to: member.appendingPathComponent(name))
        // Mallory is a member: her signed vector proves her directory (docs/folder-sync.md, "Members").
        let vector = BundleFiles.seal(
            HyzerSync.Bundle(groupID: group.id, sender: malloryID, senderVector: VersionVector(), segments: [])
                .encoded(signedBy: { mallory.sign($0) }),
            group: group)
        try Data(vector).write(to: member.appendingPathComponent("vector-" + Hex.encode(Blake2b.hash256(vector)) + ".hzv"))
        let first = try cli.run("sync", "--folder", folder.path)
        #expect(first.status == 0)
        #expect(first.stderr.contains("\(name): not a hyzer-peer bundle (outOfRange(field: \"sequence\"))"))
        // The refused file is remembered by its size and time, and skipped until it changes.
        let second = try cli.run("sync", "--folder", folder.path)
        #expect(second.status == 0 && second.stderr.isEmpty)
    }

    /// A signed player op stamped 2^63 ms: the materializer's `Int64(stamp)` traps.
    @Test
    func importOfAnOpStampedBeyondTheLargestMillisecondDoesNotCrash() throws {
        let group = try prepare()
        let file = directory.path("crafted.hzb")
        try Data(crafted(group, sequence: 1, milliseconds: UInt64(1) << 63)).write(to: file)
        let result = try cli.run("import", file.path)
        #expect(result.status == 0 || result.status == 1)
        #expect(!result.stderr.contains("Fatal error"))
        #expect(try cli.run("verify").status == 0)
    }

    /// A file larger than any sealed bundle is refused by its size before a byte is read, and a
    /// link is not followed: one error each, exit 1, nothing changed.
    @Test func importRefusesAnOversizedFileAndALinkUnread() throws {
        _ = try prepare()
        let huge = directory.path("huge.hzb")
        try #require(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(BundleFiles.bytesMax) + 1)  // sparse: nothing is written
        try handle.close()
        let link = directory.path("link.hzb")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: huge.path)
        let before = try cli.digest()
        let result = try cli.run("import", huge.path, link.path)
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                error: \(huge.path): \(BundleFiles.bytesMax + 1) bytes, over the limit of \(BundleFiles.bytesMax) bytes for this kind of file; it is not read
                error: \(link.path): a symbolic link, which hyzer-peer never follows

                """)
        #expect(try cli.digest() == before)
    }
}
