import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/security.md, "Shared folder and files on disk": someone who can write into the shared
/// folder but holds no group secret plants links, FIFOs and huge files. Nothing outside the
/// folder changes, nothing is followed, nothing is read whole, and each refusal is reported.
@Suite struct FolderFileSystemAttackTests {
    /// Ann and Ben, synced until quiet, and a directory outside the folder holding a file the
    /// attacker wants overwritten.
    final class Setting: Sendable {
        let shared = SharedDirectory()
        let outside = TemporaryDirectory("hyzer-outside")
        let ann: Peer
        let ben: Peer

        init() throws {
            ann = try Peer("ann-phone", owner: "Ann", keySeed: 61)
            ben = try Peer("ben-phone", owner: "Ben", keySeed: 62, start: baseTime + 1_000)
            try syncUntilQuiet([ann, ben], shared)
            try Data("precious".utf8).write(to: outside.path("precious.txt"))
        }

        var keyFile: URL { ann.directory.path("store").appendingPathComponent(Replica.keyFileName) }

        func link(_ path: String, to target: URL) throws {
            try? FileManager.default.removeItem(at: shared.url(path))
            try FileManager.default.createSymbolicLink(atPath: shared.url(path).path, withDestinationPath: target.path)
        }

        /// Every name under the outside directory, with its bytes.
        func outsideContents() throws -> [String: Data] {
            var contents: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: outside.url.path) {
                contents[name] = try Data(contentsOf: outside.path(name))
            }
            return contents
        }
    }

    /// Links planted under the temporary names the old code used (`.<name>.<pid>.tmp`) pointed
    /// at `identity.key` and at a file outside the folder: the writes overwrote them.
    /// Names of bundles and vectors are exactly 64 lowercase ASCII hex digits: uppercase,
    /// fullwidth digits, a short stem or another extension are not ours.
    @Test func onlyExactLowercaseHexNamesAreBundlesAndVectors() {
        let hash = String(repeating: "0123456789abcdef", count: 4)
        #expect(FolderLayout.isBundleName(hash + ".hzb"))
        #expect(FolderLayout.isVectorName("vector-" + hash + ".hzv"))
        #expect(FolderLayout.isVectorName(FolderLayout.vectorFileName))
        for stem in [
            hash.uppercased(), String(hash.dropLast()), hash + "0", String(hash.dropLast()) + "\u{FF10}", String(hash.dropLast()) + "g",
        ] {
            #expect(!FolderLayout.isBundleName(stem + ".hzb"), "\(stem)")
            #expect(!FolderLayout.isVectorName("vector-" + stem + ".hzv"), "\(stem)")
        }
        #expect(!FolderLayout.isBundleName(hash + ".hzv"))
        #expect(!FolderLayout.isVectorName(hash + ".hzv"))
    }

    @Test func linksAtTemporaryNamesOverwriteNothing() throws {
        let setting = try Setting()
        let annDirectory = setting.shared.memberDirectory(setting.ann.author)
        let key = try Data(contentsOf: setting.keyFile)
        try setting.link(annDirectory + "/.vector.hzv.\(getpid()).tmp", to: setting.keyFile)
        try setting.link(annDirectory + "/.\(getpid()).tmp", to: setting.outside.path("precious.txt"))
        try setting.ann.replica.addPlayer(name: "Cleo")
        let report = try setting.ann.sync(setting.shared)
        #expect(report.bundlesWritten == 1 && report.vectorPublished)

        #expect(try Data(contentsOf: setting.keyFile) == key)
        #expect(try setting.outsideContents() == ["precious.txt": Data("precious".utf8)])
        let reopened = try Replica.open(at: setting.ann.directory.path("store"))
        #expect(reopened.author == setting.ann.author)
        try reopened.close()

        // Ben reports the links and still gets Cleo.
        let benReport = try setting.ben.sync(setting.shared)
        #expect(benReport.opsIngested == 1)
        #expect(benReport.rejected.count == 2 && benReport.rejected.allSatisfy { $0.reason == FolderSync.notFollowed })
    }

    /// A link where Ann's own directory (or the group directory) should be made the old code
    /// write her bundles and vector outside the folder.
    @Test(arguments: [false, true])
    func aLinkInPlaceOfADirectoryIsRefusedAndNothingIsWrittenOutside(groupDirectory: Bool) throws {
        let shared = SharedDirectory()
        let outside = TemporaryDirectory("hyzer-outside")
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 61)
        let linked = groupDirectory ? shared.groupDirectory : shared.memberDirectory(ann.author)
        try FileManager.default.createDirectory(at: shared.url(linked).deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: shared.url(linked).path, withDestinationPath: outside.url.path)

        let error = #expect(throws: FolderError.self) { try ann.sync(shared) }
        #expect(error?.path == shared.url(linked).path)
        #expect(error?.reason.contains("symbolic link") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty)
    }

    /// Links in place of a bundle and of the vector file, pointing at genuine files outside the
    /// folder, and a FIFO named like a bundle: none is opened; each is reported.
    @Test func linksAndAFIFONamedLikeOurFilesAreReportedAndNotRead() throws {
        let setting = try Setting()
        let annDirectory = setting.shared.memberDirectory(setting.ann.author)
        let head = try setting.ann.replica.versionVector()[setting.ann.author]
        try setting.ann.replica.addPlayer(name: "Cleo")
        let genuine = try setting.ann.sealedBundle([try setting.ann.segment(of: setting.ann.author, above: head)])
        try Data(genuine).write(to: setting.outside.path("bundle"))
        let bundlePath = annDirectory + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(genuine))
        try setting.link(bundlePath, to: setting.outside.path("bundle"))
        try setting.link(annDirectory + "/" + FolderLayout.vectorFileName, to: setting.outside.path("bundle"))
        let fifoPath = annDirectory + "/" + String(repeating: "0f", count: 32) + ".hzb"
        #expect(mkfifo(setting.shared.url(fifoPath).path, 0o644) == 0)

        let before = try StoreState(setting.ben.replica)
        let report = try setting.ben.sync(setting.shared)
        #expect(Set(report.rejected.map(\.file)) == [bundlePath, annDirectory + "/" + FolderLayout.vectorFileName, fifoPath])
        #expect(report.rejected.allSatisfy { $0.reason == FolderSync.notFollowed })
        #expect(report.opsIngested == 0 && report.bytesRead == 0)
        #expect(try StoreState(setting.ben.replica) == before)

        // Read directly, neither the link nor the FIFO is opened (a FIFO would block a reader).
        let linkError = #expect(throws: FolderError.self) { try setting.shared.folder.read(bundlePath, maximumBytes: 1 << 20) }
        #expect(linkError?.reason.contains("symbolic link") == true)
        let fifoError = #expect(throws: FolderError.self) { try setting.shared.folder.read(fifoPath, maximumBytes: 1 << 20) }
        #expect(fifoError?.reason == "not a regular file; it is not read")
    }

    /// A sparse 2 GiB file named like a bundle: the old code read it whole (4 GiB peak).
    @Test func aHugeFileNamedLikeABundleIsRefusedBySizeWithoutBeingRead() throws {
        let setting = try Setting()
        let path = setting.shared.memberDirectory(setting.ann.author) + "/" + String(repeating: "ee", count: 32) + ".hzb"
        let size: off_t = 2 << 30
        let descriptor = open(setting.shared.url(path).path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0 && ftruncate(descriptor, size) == 0)
        close(descriptor)

        let report = try setting.ben.sync(setting.shared)
        #expect(report.bytesRead == 0)
        let limit = FolderLayout.maximumBundleBytes
        let absolute = setting.shared.url(path).path
        #expect(
            report.rejected == [
                .init(file: path, reason: "2147483648 bytes, over the limit of 67108864 bytes for this kind of file; it is not read")
            ])
        #expect(throws: FolderError.tooLarge(path: absolute, size: UInt64(size), limit: limit)) {
            try setting.shared.folder.read(path, maximumBytes: limit)
        }
    }

    @Test(arguments: ["../escape", "hyzer/../../escape", "/etc/passwd", "hyzer//x", "hyzer/./x", "", "hyzer/x\0y"])
    func aPathThatLeavesTheFolderIsRefused(path: String) throws {
        let shared = SharedDirectory()
        #expect(throws: FolderError.self) { try shared.folder.writeAtomically(path, [1]) }
        #expect(throws: FolderError.self) { try shared.folder.read(path, maximumBytes: 10) }
        #expect(throws: FolderError.self) { try shared.folder.remove(path) }
    }
}
