import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

// MARK: Fault-injecting folders

/// Counts the writes a `FullDiskFolder` still lets through.
final class WriteBudget: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int

    init(_ writes: Int) { left = writes }

    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard left > 0 else { return false }
        left -= 1
        return true
    }
}

/// A real directory whose disk fills up after `budget` writes: further writes fail as
/// `write(2)` does on a full disk.
struct FullDiskFolder: SharedFolder {
    let base: DirectoryFolder
    var budget = WriteBudget(0)

    var identity: String { base.identity }
    func list(_ directory: String) throws -> [FolderEntry] { try base.list(directory) }
    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] { try base.read(path, maximumBytes: maximumBytes) }
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        guard budget.take() else {
            throw FolderError(path: base.root.appendingPathComponent(path).path, reason: "No space left on device")
        }
        try base.writeAtomically(path, bytes)
    }
    func remove(_ path: String) throws { try base.remove(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
}

/// A real directory in which one directory cannot be listed, as when its permissions deny it
/// (tests run as root, and `chmod` does not stop root).
struct UnreadableDirectoryFolder: SharedFolder {
    let base: DirectoryFolder
    let unreadable: String

    var identity: String { base.identity }
    func list(_ directory: String) throws -> [FolderEntry] {
        guard directory != unreadable else {
            throw FolderError(
                path: base.root.appendingPathComponent(directory).path, reason: "the directory cannot be read (check its permissions)")
        }
        return try base.list(directory)
    }
    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] { try base.read(path, maximumBytes: maximumBytes) }
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws { try base.writeAtomically(path, bytes) }
    func remove(_ path: String) throws { try base.remove(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
}

/// A real directory in which reading files fails for a while (an I/O error, a cloud
/// placeholder not downloaded yet), then works again.
struct UnreadableFilesFolder: SharedFolder {
    let base: DirectoryFolder

    var identity: String { base.identity }
    func list(_ directory: String) throws -> [FolderEntry] { try base.list(directory) }
    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        throw FolderError(path: base.root.appendingPathComponent(path).path, reason: "Input/output error")
    }
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws { try base.writeAtomically(path, bytes) }
    func remove(_ path: String) throws { try base.remove(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
}

/// docs/replication.md, "Shared-folder transport": each replica writes only into its own
/// directory, ignores what is not its to read, refuses what fails a check without changing
/// anything, reads each file once, deletes its bundles once every member holds them, and
/// converges with the others whatever the order of syncs.
@Suite struct FolderSyncTests {
    /// Ann, Ben and Mallory (a member of the group too), synced until quiet.
    final class Trio: Sendable {
        let shared = SharedDirectory()
        let ann: Peer
        let ben: Peer
        let mallory: Peer

        init() throws {
            ann = try Peer("ann-phone", owner: "Ann", keySeed: 51)
            ben = try Peer("ben-phone", owner: "Ben", keySeed: 52, start: baseTime + 1_000)
            mallory = try Peer("mallory-phone", owner: "Mallory", keySeed: 53, start: baseTime + 2_000)
            try settle(all, shared)
        }

        var all: [Peer] { [ann, ben, mallory] }
    }

    // MARK: Convergence

    @Test(arguments: [UInt64(0x11), 0x22, 0x33, 0x44])
    func threeReplicasConvergeWhateverTheOrderOfSyncs(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let shared = SharedDirectory()
        let peers = [
            try Peer("ann-phone", owner: "Ann", keySeed: 41),
            try Peer("ben-phone", owner: "Ben", keySeed: 42, start: baseTime + 1_000),
            try Peer("cal-laptop", kind: .laptop, owner: "Cal", keySeed: 43, start: baseTime + 2_000),
        ]
        var written = 0
        for step in 0..<18 {
            let peer = rng.pick(peers)
            switch rng.below(4) {
            case 0:
                try peer.replica.addPlayer(name: "Player \(step)")
            case 1:
                if let view = try peer.replica.rounds().first {
                    let participant = rng.pick(view.round.participants)
                    try peer.replica.recordScore(
                        round: view.round.id.lowercased, player: participant.name, hole: 1 + rng.below(view.round.holeCount),
                        strokes: 2 + rng.below(4))
                } else {
                    let owner = try #require(try peer.replica.identity().owner)
                    try peer.replica.startRound(course: "Morley Field", players: [owner.displayName])
                }
            case 2:
                try peer.replica.addCourse(name: "Course \(step)", pars: [3, 3 + rng.below(3), 4])
            default:
                break
            }
            if rng.chance(70) {
                let report = try peer.sync(shared)
                #expect(report.rejected.isEmpty && report.ignored.isEmpty)
                written += report.bundlesWritten
            }
        }
        #expect(written > 0)
        try syncUntilQuiet(peers, shared, rng: &rng)
        passGracePeriod(peers)
        try syncUntilQuiet(peers, shared, rng: &rng)

        let states = try peers.map { try StoreState($0.replica) }
        #expect(states.allSatisfy { $0 == states[0] }, "\(states)")
        #expect(states[0].pendingOps == 0)
        #expect(try peers.allSatisfy { try $0.replica.verify().isIntact })
        // Every member holds everything, so every bundle is gone; only one vector each stays.
        let files = shared.files()
        #expect(files.count == peers.count)
        for peer in peers {
            #expect(files.contains { $0.hasPrefix(shared.memberDirectory(peer.author) + "/vector-") && $0.hasSuffix(".hzv") }, "\(files)")
        }
    }

    @Test func aSyncWithNothingNewReadsNothing() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        #expect(try trio.ann.sync(trio.shared).bundlesWritten == 1)

        // Ben reads Ann's bundle once; a second sync costs only the listings.
        let first = try trio.ben.sync(trio.shared)
        #expect(first.bundlesRead == 1 && first.opsIngested == 1 && first.bytesRead > 0)
        let second = try trio.ben.sync(trio.shared)
        #expect(second.bundlesRead == 0 && second.bytesRead == 0)
        #expect(second.bundlesSkipped >= 1)
        #expect(second.bundlesWritten == 0 && second.bytesWritten == 0 && !second.vectorPublished)
        #expect(second.opsIngested == 0 && second.rejected.isEmpty)

        // Once quiet, nobody reads or writes anything.
        try syncUntilQuiet(trio.all, trio.shared)
        for peer in trio.all {
            let report = try peer.sync(trio.shared)
            #expect(report.bundlesRead == 0 && report.bytesRead == 0, "\(peer.name)")
            #expect(report.bundlesWritten == 0 && report.bytesWritten == 0 && !report.vectorPublished, "\(peer.name)")
            #expect(report.bundlesDeleted == 0 && report.opsIngested == 0 && report.members == 2, "\(peer.name)")
        }
    }

    @Test func oldBundlesAreDeletedOnceEveryMemberHoldsThem() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(trio.shared)
        let bundle = try #require(trio.shared.bundles(of: trio.ann.author).first)
        #expect(trio.shared.bundles(of: trio.ann.author) == [bundle])

        try trio.ben.sync(trio.shared)
        let annAgain = try trio.ann.sync(trio.shared)
        #expect(annAgain.bundlesDeleted == 0, "Mallory does not hold it yet")
        #expect(trio.shared.bundles(of: trio.ann.author) == [bundle])

        // Every member holds it: retired, and still there for a grace period, so a sync tool
        // copying it is not cut off.
        try trio.mallory.sync(trio.shared)
        let annLast = try trio.ann.sync(trio.shared)
        #expect(annLast.bundlesRetired == 1 && annLast.bundlesDeleted == 0)
        #expect(trio.shared.bundles(of: trio.ann.author) == [bundle])
        trio.ann.clock.set(trio.ann.clock.nowMilliseconds() + FolderLayout.gracePeriodMilliseconds - 1_000)
        #expect(try trio.ann.sync(trio.shared).bundlesDeleted == 0)
        #expect(trio.shared.bundles(of: trio.ann.author) == [bundle])

        trio.ann.clock.set(trio.ann.clock.nowMilliseconds() + 1_000)
        let afterGrace = try trio.ann.sync(trio.shared)
        #expect(afterGrace.bundlesDeleted == 1 && afterGrace.bundlesRetired == 0)
        #expect(trio.shared.bundles(of: trio.ann.author).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: trio.shared.url(bundle).path))

        try settle(trio.all, trio.shared)
        for peer in trio.all { #expect(trio.shared.bundles(of: peer.author).isEmpty, "\(peer.name)") }
    }

    @Test func aMemberJoiningLateStillGetsEveryOp() throws {
        let trio = try Trio()
        for name in ["Cleo", "Dina"] { try trio.ann.replica.addPlayer(name: name) }
        try trio.ben.replica.addCourse(name: "Back Yard", pars: [3, 3, 3])
        try settle(trio.all, trio.shared)
        #expect(trio.all.allSatisfy { trio.shared.bundles(of: $0.author).isEmpty }, "every bundle was deleted")

        let dan = try Peer("dan-phone", owner: "Dan", keySeed: 54, start: baseTime + 9_000)
        let everyone = trio.all + [dan]
        try syncUntilQuiet(everyone, trio.shared)
        let states = try everyone.map { try StoreState($0.replica) }
        #expect(states.allSatisfy { $0 == states[0] })
        #expect(Set(states[0].players.map { String($0.split(separator: "=")[1]) }) == ["Ann", "Ben", "Mallory", "Cleo", "Dina", "Dan"])
        #expect(try dan.replica.courses().contains { $0.name == "Back Yard" })
    }

    @Test func noPlayerNameIsReadableInTheFolder() throws {
        let shared = SharedDirectory()
        let ann = try Peer("annikas-phone", owner: "Annika Sörenstam", keySeed: 55)
        let ben = try Peer("bjorns-phone", owner: "Björn Borg", keySeed: 56, start: baseTime + 1_000)
        try ann.replica.addPlayer(name: "Paul McBeth")
        try ann.replica.addCourse(name: "Secret Meadow Park", pars: [3, 4, 3, 5])
        let round = try ann.replica.startRound(
            course: "Secret Meadow Park", players: ["Annika Sörenstam", "Paul McBeth"], guests: ["Guest Gertrude"])
        try ann.replica.recordScore(round: round.id.lowercased, player: "Guest Gertrude", hole: 1, strokes: 3)
        try ann.sync(shared)
        try ben.sync(shared)
        #expect(!shared.bundles(of: ann.author).isEmpty && !shared.bundles(of: ben.author).isEmpty)

        let secrets = [
            "Annika Sörenstam", "Björn Borg", "Paul McBeth", "Guest Gertrude", "Secret Meadow Park", "Morley Field", "annikas-phone",
            "bjorns-phone", "Annika", "McBeth",
        ]
        for path in shared.files() {
            let bytes = try shared.read(path)
            for secret in secrets {
                #expect(!contains(bytes, Array(secret.utf8)), "\(secret) is readable in \(path)")
                #expect(!path.contains(secret))
            }
        }
    }

    // MARK: Junk

    @Test func junkInTheFolderIsIgnoredAndListed() throws {
        let trio = try Trio()
        let shared = trio.shared
        let annDirectory = shared.memberDirectory(trio.ann.author)
        let group = shared.groupDirectory
        let hash = String(repeating: "ab", count: 32)
        let stranger = AuthorID(bytes: seededKeys(99).publicKey)!

        let junkFiles: [(String, [UInt8])] = [
            (annDirectory + "/notes.txt", Array("hello".utf8)),
            (annDirectory + "/\(hash).hzb.tmp", [1, 2, 3]),
            (annDirectory + "/.\(hash).hzb.4242.tmp", [1, 2, 3]),
            (annDirectory + "/.syncthing.\(hash).hzb.tmp", [4, 5, 6]),
            (annDirectory + "/\(hash).sync-conflict-20240601-120000-ABCDEFG.hzb", [7, 8, 9]),
            (annDirectory + "/vector.sync-conflict-20240601-120000-ABCDEFG.hzv", [7, 8, 9]),
            (annDirectory + "/\(hash.uppercased()).hzb", [10]),
            (annDirectory + "/\(hash).HZB", [11]),
            (annDirectory + "/\(hash.prefix(62)).hzb", [12]),
            (annDirectory + "/empty", []),
            (annDirectory + "/.DS_Store", []),
            (annDirectory + "/vector.hzv.tmp", []),
            (group + "/README.txt", Array("junk".utf8)),
            (group + "/" + stranger.hex, []),  // a file where a member's directory would be
            ("hyzer/stray.txt", [1]),
            (FolderLayout.groupDirectory(otherGroup) + "/" + stranger.hex + "/" + hash + ".hzb", [1]),
        ]
        for (path, bytes) in junkFiles { try shared.put(bytes, at: path) }
        let junkDirectories = [
            annDirectory + "/" + hash + ".hzb",  // a directory where a bundle would be
            annDirectory + "/more",
            group + "/" + trio.ben.author.hex.uppercased(),
            group + "/not-a-member",
            group + "/" + String(stranger.hex.prefix(63)),
        ]
        for path in junkDirectories {
            try FileManager.default.createDirectory(at: shared.url(path), withIntermediateDirectories: true)
        }
        // Something genuine among the junk.
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(shared)

        let before = try trio.ben.replica.digest()
        let report = try trio.ben.sync(shared)
        let expected = junkFiles.map(\.0).filter { $0.hasPrefix(group + "/") } + junkDirectories
        #expect(Set(report.ignored) == Set(expected))
        #expect(report.ignored.count == expected.count)
        #expect(report.rejected.isEmpty)
        #expect(report.opsIngested == 1 && report.bundlesRead == 1)
        #expect(try trio.ben.replica.digest() != before)
        #expect(try trio.ben.replica.players().contains { $0.displayName == "Cleo" })

        // Junk is never read, and never removed: it is not ours.
        let again = try trio.ben.sync(shared)
        #expect(again.bytesRead == 0 && Set(again.ignored) == Set(expected))
        try syncUntilQuiet(trio.all, shared)
        for (path, _) in junkFiles { #expect(FileManager.default.fileExists(atPath: shared.url(path).path), "\(path)") }
    }

    @Test func aFileOfRandomBytesWithABundleNameIsRejectedOnce() throws {
        let trio = try Trio()
        var rng = SplitMix64(seed: 0xbad)
        let directory = trio.shared.memberDirectory(trio.ann.author)
        let name = (0..<32).map { _ in String(format: "%02x", rng.below(256)) }.joined() + ".hzb"
        let path = directory + "/" + name
        try trio.shared.put(rng.bytes(300), at: path)
        let selfNamedBytes = rng.bytes(200)
        let selfNamed = try trio.shared.plant(selfNamedBytes, member: trio.ann.author)
        let before = try StoreState(trio.ben.replica)

        let first = try trio.ben.sync(trio.shared)
        #expect(first.rejected.count == 2)
        let byFile = Dictionary(uniqueKeysWithValues: first.rejected.map { ($0.file, $0.reason) })
        #expect(byFile[path] == BundleError.contentHashMismatch.description)
        #expect(byFile[selfNamed] == BundleError.notABundle(reason: "no sealed-file header").description)
        #expect(first.bundlesRead == 0 && first.bytesRead == 500 && first.opsIngested == 0)
        #expect(try StoreState(trio.ben.replica) == before)

        // Not read again while it does not change.
        let second = try trio.ben.sync(trio.shared)
        #expect(second.rejected.isEmpty && second.bundlesRead == 0 && second.bytesRead == 0 && second.bundlesSkipped == 2)

        // Changed, it is read and reported again.
        try trio.shared.put(rng.bytes(301), at: path)
        let third = try trio.ben.sync(trio.shared)
        #expect(third.rejected.map(\.file) == [path] && third.bytesRead == 301)

        // Ann's next good bundle still goes in.
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(trio.shared)
        let fourth = try trio.ben.sync(trio.shared)
        #expect(fourth.rejected.isEmpty && fourth.opsIngested == 1)
        #expect(try StoreState(trio.ben.replica) != before)
    }

    // MARK: Attacks through the folder

    /// A damaged or hostile file, put in the folder while Ann's genuine new op waits to be
    /// written.
    enum Attack: String, CaseIterable, Sendable {
        case flippedByteKeepingItsName
        case flippedByteRenamedToItsHash
        case truncatedKeepingItsName
        case truncatedRenamedToItsHash
        case emptyFileWithABundleName
        case emptyFileNamedByItsHash
        case anotherGroupsBundle
        case anotherGroupsKeyWithOurHeader
        case newerFormatVersion
        case misplacedInAnotherMembersDirectory
        case senderSignedByAnotherMember
        case opSignedByAnotherAuthorThanItNames

        /// The file's path and the words of the reason that names the failed check.
        func plant(_ trio: Trio, genuine: [UInt8], newOps: AuthorSegment) throws -> (path: String, reason: String) {
            let shared = trio.shared
            let ann = trio.ann.author
            let name = FolderLayout.bundleName(contentHash: Blake2b.hash256(genuine))
            let annDirectory = shared.memberDirectory(ann)
            var damaged = genuine
            switch self {
            case .flippedByteKeepingItsName:
                damaged[damaged.count / 2] ^= 0x20
                try shared.put(damaged, at: annDirectory + "/" + name)
                // Its size is the genuine file's: an old time keeps the two apart on any clock.
                try shared.touch(annDirectory + "/" + name, at: Date(timeIntervalSince1970: 1_000_000_000))
                return (annDirectory + "/" + name, "its contents do not match its name")
            case .flippedByteRenamedToItsHash:
                damaged[damaged.count / 2] ^= 0x20
                return (try shared.plant(damaged, member: ann), "decryption failed")
            case .truncatedKeepingItsName:
                try shared.put(Array(genuine.prefix(genuine.count / 2)), at: annDirectory + "/" + name)
                return (annDirectory + "/" + name, "its contents do not match its name")
            case .truncatedRenamedToItsHash:
                return (try shared.plant(Array(genuine.dropLast()), member: ann), "decryption failed")
            case .emptyFileWithABundleName:
                try shared.put([], at: annDirectory + "/" + name)
                return (annDirectory + "/" + name, "its contents do not match its name")
            case .emptyFileNamedByItsHash:
                return (try shared.plant([], member: ann), "the file is empty")
            case .anotherGroupsBundle:
                return (try shared.plant(try trio.ann.sealedBundle([newOps], group: otherGroup), member: ann), "belongs to group")
            case .anotherGroupsKeyWithOurHeader:
                var foreign = try trio.ann.sealedBundle([newOps], group: otherGroup)
                foreign.replaceSubrange(5..<21, with: testGroup.id.bytes)
                return (try shared.plant(foreign, member: ann), "decryption failed")
            case .newerFormatVersion:
                damaged[4] = 3  // versions 1 and 2 are read (docs/formats.md, "Sealed file")
                return (try shared.plant(damaged, member: ann), "upgrade hyzer-peer")
            case .misplacedInAnotherMembersDirectory:
                return (try shared.plant(genuine, member: trio.mallory.author), "it was sent by \(ann.short)")
            case .senderSignedByAnotherMember:
                let bundle = DeltaBundle(
                    groupID: testGroup.id, sender: ann, senderVector: try trio.ann.replica.versionVector(), segments: [newOps])
                let sealed = SealedFile.seal(bundle.encoded(signedBy: trio.mallory.replica.signature(of:)), group: testGroup)
                return (try shared.plant(sealed, member: ann), "the signature of its sender \(ann.short) does not verify")
            case .opSignedByAnotherAuthorThanItNames:
                let ops = try newOps.verifiedOps()
                let forged = SignedOp(
                    author: ann, sequence: ops[0].sequence, previousHash: ops[0].previousHash, tail: ops[0].tail, signature: nil
                )
                .with(signature: trio.mallory.keys.sign(SignedOp.signedMessage(hash: ops[0].hash)))
                let sealed = try trio.mallory.sealedBundle([AuthorSegment(ops: [forged])])
                return (
                    try shared.plant(sealed, member: trio.mallory.author),
                    "the signature of author \(ann.short)'s op \(ops[0].sequence) does not verify"
                )
            }
        }

        /// Whether the bundle itself is sound and only a segment in it is refused.
        var isSegmentLevel: Bool { self == .opSignedByAnotherAuthorThanItNames }

        /// Whether the file lies in Mallory's directory, which Mallory herself never reads.
        var isInMallorysDirectory: Bool {
            self == .misplacedInAnotherMembersDirectory || self == .opSignedByAnotherAuthorThanItNames
        }
    }

    @Test(arguments: Attack.allCases)
    func aBadFileIsRefusedByNameAndCheckAndChangesNothing(_ attack: Attack) throws {
        let trio = try Trio()
        let head = try trio.ann.replica.versionVector()[trio.ann.author]
        try trio.ann.replica.addPlayer(name: "Cleo")
        let newOps = try trio.ann.segment(of: trio.ann.author, above: head)
        let genuine = try trio.ann.sealedBundle([newOps])
        let (path, reason) = try attack.plant(trio, genuine: genuine, newOps: newOps)

        for peer in [trio.ben, trio.mallory] {
            let before = try StoreState(peer.replica)
            let records = try peer.syncRecords(trio.shared.folder)
            let report = try peer.sync(trio.shared)
            let expectedRejections = peer === trio.mallory && attack.isInMallorysDirectory ? 0 : 1
            #expect(report.rejected.count == expectedRejections, "\(peer.name): \(report.rejected)")
            if let rejection = report.rejected.first {
                #expect(rejection.file == path)
                #expect(rejection.reason.contains(reason), "\(rejection.reason)")
            }
            #expect(report.opsIngested == 0 && report.opsPending == 0)
            #expect(report.bundlesRead == (attack.isSegmentLevel && expectedRejections == 1 ? 1 : 0))
            #expect(report.bundlesWritten == 0 && !report.vectorPublished)
            #expect(try StoreState(peer.replica) == before, "\(peer.name)")
            // Only the bookkeeping of the file read changes.
            let changed = try peer.syncRecords(trio.shared.folder).filter { records[$0.key] != $0.value }.map(\.key)
            #expect(changed == (expectedRejections == 1 ? ["file:" + path] : []))

            // Refused once, not read again while it stays the same.
            let again = try peer.sync(trio.shared)
            #expect(again.rejected.isEmpty && again.bytesRead == 0)
        }

        // Ann's genuine bundle still goes in everywhere.
        try trio.ann.sync(trio.shared)
        for peer in [trio.ben, trio.mallory] {
            let report = try peer.sync(trio.shared)
            #expect(report.rejected.isEmpty && report.opsIngested == 1, "\(peer.name): \(report)")
            #expect(try peer.replica.players().contains { $0.displayName == "Cleo" })
        }
        try syncUntilQuiet(trio.all, trio.shared)
    }

    // MARK: Order, replays, forks

    /// A folder-sync tool delivers Ann's second bundle before her first: Ben keeps its ops
    /// aside, and applies them when the first arrives.
    @Test func aBundleAboveAGapWaitsForTheGapToFill() throws {
        let trio = try Trio()
        let stash = TemporaryDirectory("hyzer-sync-stash")
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(trio.shared)
        let first = try #require(trio.shared.bundles(of: trio.ann.author).first)
        try trio.ann.replica.addPlayer(name: "Dina")
        try trio.ann.replica.addPlayer(name: "Emil")
        try trio.ann.sync(trio.shared)
        #expect(trio.shared.bundles(of: trio.ann.author).count == 2)
        try FileManager.default.moveItem(at: trio.shared.url(first), to: stash.path("first"))

        let before = try StoreState(trio.ben.replica)
        let early = try trio.ben.sync(trio.shared)
        #expect(early.rejected.isEmpty && early.bundlesRead == 1)
        #expect(early.opsIngested == 0 && early.opsPending == 2)
        let waiting = try StoreState(trio.ben.replica)
        #expect(waiting.digest == before.digest && waiting.players == before.players && waiting.pendingOps == 2)

        try FileManager.default.moveItem(at: stash.path("first"), to: trio.shared.url(first))
        let filled = try trio.ben.sync(trio.shared)
        #expect(filled.rejected.isEmpty && filled.bundlesRead == 1)
        #expect(filled.opsIngested == 3 && filled.opsPending == 0)
        #expect(try trio.ben.replica.versionVector() == trio.ann.replica.versionVector())
        try syncUntilQuiet(trio.all, trio.shared)
    }

    @Test func aReplayedOldBundleChangesNothing() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(trio.shared)
        let path = try #require(trio.shared.bundles(of: trio.ann.author).first)
        let old = try trio.shared.read(path)
        try settle(trio.all, trio.shared)
        #expect(trio.shared.bundles(of: trio.ann.author).isEmpty)

        try trio.shared.put(old, at: path)
        try trio.shared.touch(path, at: Date(timeIntervalSince1970: 1_000_000_000))
        for peer in [trio.ben, trio.mallory] {
            let before = try StoreState(peer.replica)
            let report = try peer.sync(trio.shared)
            #expect(report.rejected.isEmpty && report.bundlesRead == 1)
            #expect(report.opsIngested == 0 && report.opsAlreadyHeld == 1)
            #expect(try StoreState(peer.replica) == before)
        }
    }

    /// Ann's phone and a copy of it restored from an old backup (same key) write into the same
    /// directory; Rex sees two different ops 2 of one author.
    @Test func aForkInTheFolderIsReportedAndTheRestStillSyncs() throws {
        let shared = SharedDirectory()
        let phone = try Peer("ann-phone", keySeed: 57)
        let restored = try Peer("ann-phone", keySeed: 57)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 58, start: baseTime + 1_000)
        let ben = try Peer("ben-phone", owner: "Ben", keySeed: 59, start: baseTime + 2_000)
        try phone.replica.addPlayer(name: "Ann")
        try syncUntilQuiet([phone, rex, ben], shared)
        #expect(try rex.replica.versionVector()[phone.author] == 2)

        try restored.replica.addPlayer(name: "Zed")
        try restored.replica.addPlayer(name: "Zoe")
        try restored.sync(shared)
        let before = try StoreState(rex.replica)
        let report = try rex.sync(shared)
        #expect(report.rejected.count == 1)
        #expect(report.rejected.first?.reason == IngestError.fork(author: phone.author, sequence: 2).description)
        #expect(report.opsIngested == 0)
        let after = try StoreState(rex.replica)
        // The author is frozen at op 2: Ann (its op 2) no longer counts, on any replica.
        #expect(after.digest != before.digest && after.players == before.players.filter { !$0.contains("Ann") })
        #expect(after.forks == ["\(phone.author.hex)@2"])

        // Not reported again; other members' ops still travel.
        try ben.replica.addPlayer(name: "Cleo")
        try ben.sync(shared)
        let next = try rex.sync(shared)
        #expect(next.rejected.isEmpty && next.opsIngested == 1)
    }

    /// Rex and Dee each received one branch of Ann's phone, of equal length (the phone and a
    /// copy of it each wrote one op): their vectors hold the same sequence numbers. Through the
    /// folder both learn of the fork, freeze Ann's phone at op 2, and agree.
    @Test func equalLengthBranchesConvergeThroughTheFolder() throws {
        let shared = SharedDirectory()
        let phone = try Peer("ann-phone", keySeed: 60)
        let copy = try Peer("ann-phone", keySeed: 60)
        try phone.replica.addPlayer(name: "Ann")
        try copy.replica.addPlayer(name: "Zed")
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 61, start: baseTime + 1_000)
        let dee = try Peer("dee-phone", owner: "Dee", keySeed: 62, start: baseTime + 2_000)
        try rex.replica.ingest(phone.replica.delta(above: VersionVector()))
        try dee.replica.ingest(copy.replica.delta(above: VersionVector()))
        #expect(try rex.replica.versionVector()[phone.author] == dee.replica.versionVector()[phone.author])

        try syncUntilQuiet([rex, dee], shared, expectClean: false)
        let (r, d) = (try StoreState(rex.replica), try StoreState(dee.replica))
        #expect(r.digest == d.digest)
        #expect(r.players == d.players)
        #expect(r.forks == ["\(phone.author.hex)@2"] && d.forks == r.forks)
        #expect(!r.players.contains { $0.hasSuffix("=Ann") || $0.hasSuffix("=Zed") })
    }

    // MARK: Failures of the folder

    @Test func anUnreadableMemberDirectoryIsReportedAndTheRestSyncs() throws {
        let trio = try Trio()
        try trio.ben.replica.addPlayer(name: "Cleo")
        try trio.mallory.replica.addPlayer(name: "Dina")
        // Mallory writes before Ben does, so her bundle does not relay Ben's op.
        try trio.mallory.sync(trio.shared)
        try trio.ben.sync(trio.shared)

        let benDirectory = trio.shared.memberDirectory(trio.ben.author)
        let folder = UnreadableDirectoryFolder(base: trio.shared.folder, unreadable: benDirectory)
        let report = try trio.ann.sync(folder)
        #expect(report.rejected.count == 1)
        #expect(report.rejected.first?.file == benDirectory)
        #expect(report.rejected.first?.reason.contains("cannot be read") == true)
        #expect(report.opsIngested == 1, "Mallory's op")
        let names = try trio.ann.replica.players().map(\.displayName)
        #expect(names.contains("Dina") && !names.contains("Cleo"))

        // Readable again, Ben's ops come in too.
        let later = try trio.ann.sync(trio.shared)
        #expect(later.rejected.isEmpty && later.opsIngested >= 1)
        #expect(try trio.ann.replica.players().contains { $0.displayName == "Cleo" })
        try syncUntilQuiet(trio.all, trio.shared)
    }

    @Test func aFullDiskFailsTheSyncAndChangesNothing() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        let before = try StoreState(trio.ann.replica)
        let records = try trio.ann.syncRecords(trio.shared.folder)
        let files = trio.shared.files()

        let full = FullDiskFolder(base: trio.shared.folder)
        let error = #expect(throws: FolderError.self) { try trio.ann.sync(full) }
        #expect(error?.reason == "No space left on device")
        #expect(error?.path.hasPrefix(trio.shared.url(trio.shared.memberDirectory(trio.ann.author)).path) == true)
        #expect(try StoreState(trio.ann.replica) == before)
        #expect(try trio.ann.syncRecords(trio.shared.folder) == records)
        #expect(trio.shared.files() == files, "no temporary or partial file is left")

        // With room again, the sync goes through and the others get the op.
        let report = try trio.ann.sync(trio.shared)
        #expect(report.bundlesWritten == 1 && report.vectorPublished)
        try syncUntilQuiet(trio.all, trio.shared)
        #expect(try trio.ben.replica.players().contains { $0.displayName == "Cleo" })
        #expect(!trio.shared.files().contains { $0.hasSuffix(".tmp") })
    }

    /// The disk fills while other members' bundles are coming in: what was ingested is whole
    /// and authentic, and the files are read again next time (nothing is recorded as read).
    @Test func aFullDiskWhileBundlesComeInLosesNothing() throws {
        let trio = try Trio()
        try trio.ben.replica.addPlayer(name: "Cleo")
        try trio.ben.sync(trio.shared)
        try trio.ann.replica.addPlayer(name: "Dina")
        let records = try trio.ann.syncRecords(trio.shared.folder)

        #expect(throws: FolderError.self) { try trio.ann.sync(FullDiskFolder(base: trio.shared.folder)) }
        #expect(try trio.ann.syncRecords(trio.shared.folder) == records)
        #expect(try trio.ann.replica.status().pendingOps == 0)
        #expect(try trio.ann.replica.verify().isIntact)

        let report = try trio.ann.sync(trio.shared)
        #expect(report.rejected.isEmpty && report.bundlesRead == 1 && report.bundlesWritten == 1)
        try syncUntilQuiet(trio.all, trio.shared)
        #expect(try trio.all.allSatisfy { try $0.replica.players().contains { $0.displayName == "Cleo" } })
        #expect(try trio.all.allSatisfy { try $0.replica.players().contains { $0.displayName == "Dina" } })
    }

    /// The bundle is written, then the disk fills before the vector is: the bundle is in the
    /// folder but the sync failed. Once everyone holds its ops it must still be deleted.
    @Test
    func aBundleWrittenBeforeTheDiskFilledIsStillDeletedLater() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        #expect(throws: FolderError.self) {
            try trio.ann.sync(FullDiskFolder(base: trio.shared.folder, budget: WriteBudget(1)))
        }
        let orphan = try #require(trio.shared.bundles(of: trio.ann.author).first)
        try trio.ann.replica.addPlayer(name: "Dina")
        try settle(trio.all, trio.shared)
        #expect(try trio.ben.replica.players().contains { $0.displayName == "Dina" })
        #expect(trio.shared.bundles(of: trio.ann.author).isEmpty, "\(orphan) is never deleted")
    }

    /// Reading a file fails once (an I/O error, a cloud placeholder not downloaded yet): that
    /// is not damage, so the file must be read again on the next sync. With two members
    /// nobody else relays the ops, so a file never read again is never ingested.
    @Test
    func aFileThatCouldNotBeReadIsReadAgainNextTime() throws {
        let shared = SharedDirectory()
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 51)
        let ben = try Peer("ben-phone", owner: "Ben", keySeed: 52, start: baseTime + 1_000)
        try settle([ann, ben], shared)
        try ann.replica.addPlayer(name: "Cleo")
        try ann.sync(shared)
        let bundle = try #require(shared.bundles(of: ann.author).first)

        let failed = try ben.sync(UnreadableFilesFolder(base: shared.folder))
        #expect(failed.rejected.contains { $0.file == bundle && $0.reason.contains("Input/output error") })
        #expect(failed.opsIngested == 0)

        let report = try ben.sync(shared)
        #expect(report.bundlesRead == 1 && report.opsIngested == 1, "\(report)")
        try syncUntilQuiet([ann, ben], shared)
        #expect(try ben.replica.players().contains { $0.displayName == "Cleo" })
    }

    /// `DirectoryFolder` on a write that fails (the final name is a directory): it throws,
    /// leaves no temporary file, and creates nothing.
    @Test func aDirectoryFolderWriteThatFailsLeavesNothingBehind() throws {
        let shared = SharedDirectory()
        try shared.folder.makeDirectory("hyzer/x")
        try FileManager.default.createDirectory(at: shared.url("hyzer/x/dir.hzb/inner"), withIntermediateDirectories: true)
        let error = #expect(throws: FolderError.self) { try shared.folder.writeAtomically("hyzer/x/dir.hzb", [1]) }
        #expect(error?.path == shared.url("hyzer/x/dir.hzb").path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.url("hyzer/x").path) == ["dir.hzb"])

        // And a good write goes through, private to its owner.
        try shared.folder.writeAtomically("hyzer/x/file.hzb", [1, 2, 3])
        #expect(try shared.read("hyzer/x/file.hzb") == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.url("hyzer/x").path).sorted() == ["dir.hzb", "file.hzb"])
        let mode = try FileManager.default.attributesOfItem(atPath: shared.url("hyzer/x/file.hzb").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
