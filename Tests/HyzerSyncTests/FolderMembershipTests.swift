import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/folder-sync.md, "Members" and "Retiring files": a member is proven by a signed vector,
/// remembered at the highest vector ever proven, and files are removed only a grace period
/// after they are retired.
@Suite struct FolderMembershipTests {
    typealias Trio = FolderSyncTests.Trio

    /// The vector files in `member`'s directory.
    func vectorFiles(_ shared: SharedDirectory, _ member: AuthorID) -> [String] {
        shared.files().filter { $0.hasPrefix(shared.memberDirectory(member) + "/vector") }
    }

    /// Directories named like authors, one empty, one holding junk named like a vector, one
    /// holding a copy of a real member's vector: none is a member, and none stops Ann's bundle
    /// from being retired once Ben and Mallory hold it. The old rule counted each as a member
    /// holding nothing, so the bundle stayed forever.
    @Test func directoriesNamedLikeAuthorsAreNotMembersAndNeverBlockDeletion() throws {
        let trio = try Trio()
        let shared = trio.shared
        let strangers = [97, 98, 99].map { AuthorID(bytes: seededKeys($0).publicKey)! }
        try FileManager.default.createDirectory(at: shared.url(shared.memberDirectory(strangers[0])), withIntermediateDirectories: true)
        try shared.put(Array(repeating: 7, count: 300), at: shared.memberDirectory(strangers[1]) + "/vector.hzv")
        let copied = try #require(vectorFiles(shared, trio.mallory.author).first)
        try shared.put(try shared.read(copied), at: shared.memberDirectory(strangers[2]) + "/vector.hzv")

        try trio.ann.replica.addPlayer(name: "Cleo")
        let first = try trio.ann.sync(shared)
        #expect(
            Set(first.rejected.map(\.file)) == [
                shared.memberDirectory(strangers[1]) + "/vector.hzv", shared.memberDirectory(strangers[2]) + "/vector.hzv",
            ])
        #expect(first.rejected.contains { $0.reason.contains("it was sent by \(trio.mallory.author.short)") })
        try trio.ben.sync(shared)
        try trio.mallory.sync(shared)
        let report = try trio.ann.sync(shared)
        #expect(report.members == 2)
        #expect(report.bundlesRetired == 1)
        #expect(Set(report.ignored) == Set(strangers.map { shared.memberDirectory($0) }))
        // Refused once, remembered: not read or reported again (docs/folder-sync.md, "Junk").
        #expect(report.rejected.isEmpty, "\(report.rejected)")
    }

    /// Someone deletes Mallory's directory before she read Ann's bundle. The old code then
    /// counted only Ben, and deleted the bundle Mallory still needed.
    @Test func aVanishedMemberKeepsItsLastProvenVector() throws {
        let trio = try Trio()
        let shared = trio.shared
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(shared)
        let bundle = try #require(shared.bundles(of: trio.ann.author).first)
        try trio.ben.sync(shared)
        try FileManager.default.removeItem(at: shared.url(shared.memberDirectory(trio.mallory.author)))

        let report = try trio.ann.sync(shared)
        #expect(report.members == 2 && report.bundlesRetired == 0)
        passGracePeriod(trio.all)
        #expect(try trio.ann.sync(shared).bundlesDeleted == 0)
        #expect(try trio.ben.sync(shared).bundlesDeleted == 0)
        #expect(shared.bundles(of: trio.ann.author) == [bundle])

        // Mallory comes back, reads it, and then it goes.
        try settle(trio.all, shared)
        #expect(try trio.mallory.replica.players().contains { $0.displayName == "Cleo" })
        #expect(shared.bundles(of: trio.ann.author).isEmpty)
    }

    /// Ben's vector from before Cleo, put back: the old code believed Ben lost Cleo and wrote
    /// her again (and could have been led to delete or keep the wrong bundles).
    @Test func aReplayedOlderVectorNeverLowersWhatAMemberProved() throws {
        let trio = try Trio()
        let shared = trio.shared
        let oldVector = try #require(vectorFiles(shared, trio.ben.author).first)
        let oldBytes = try shared.read(oldVector)
        try trio.ann.replica.addPlayer(name: "Cleo")
        try settle(trio.all, shared)
        #expect(!vectorFiles(shared, trio.ben.author).contains(oldVector))

        try shared.put(oldBytes, at: oldVector)
        try shared.put(oldBytes, at: shared.memberDirectory(trio.ben.author) + "/vector.hzv")
        let report = try trio.ann.sync(shared)
        #expect(report.rejected.isEmpty && report.bundlesWritten == 0 && report.bytesWritten == 0)
        #expect(report.bytesRead == 2 * oldBytes.count, "both replayed files are read once")
        #expect(shared.bundles(of: trio.ann.author).isEmpty)
    }

    /// Ben's vector in the folder goes back (his device restored from an older backup): what is
    /// written follows the vectors in the folder now, so Ann writes Cleo again, once.
    @Test func aMemberWhoseVectorWentBackIsSentWhatItLacks() throws {
        let trio = try Trio()
        let shared = trio.shared
        let oldVector = try #require(vectorFiles(shared, trio.ben.author).first)
        let oldBytes = try shared.read(oldVector)
        try trio.ann.replica.addPlayer(name: "Cleo")
        try settle(trio.all, shared)
        for file in vectorFiles(shared, trio.ben.author) { try FileManager.default.removeItem(at: shared.url(file)) }
        try shared.put(oldBytes, at: oldVector)

        let report = try trio.ann.sync(shared)
        #expect(report.bundlesWritten == 1 && report.members == 2)
        let bundle = try #require(shared.bundles(of: trio.ann.author).first)
        let again = try trio.ann.sync(shared)
        #expect(again.bytesWritten == 0 && shared.bundles(of: trio.ann.author) == [bundle], "written once, not on every sync")
    }

    /// A new vector goes under a new name; the one it replaces stays for the grace period, so a
    /// sync tool copying it never reports "no such file".
    @Test func aReplacedVectorStaysForTheGracePeriod() throws {
        let trio = try Trio()
        let shared = trio.shared
        let before = vectorFiles(shared, trio.ann.author)
        #expect(before.count == 1 && before[0].hasSuffix(".hzv") && !before[0].hasSuffix("/vector.hzv"))
        try trio.ann.replica.addPlayer(name: "Cleo")
        #expect(try trio.ann.sync(shared).vectorPublished)
        let both = vectorFiles(shared, trio.ann.author)
        #expect(both.count == 2 && both.contains(before[0]))

        // Ben reads both, and takes the higher.
        let report = try trio.ben.sync(shared)
        #expect(report.rejected.isEmpty && report.opsIngested == 1)
        #expect(try trio.ben.sync(shared).bundlesWritten == 0)

        trio.ann.clock.set(trio.ann.clock.nowMilliseconds() + FolderLayout.gracePeriodMilliseconds)
        try trio.ann.sync(shared)
        let after = vectorFiles(shared, trio.ann.author)
        #expect(after.count == 1 && !after.contains(before[0]))

        // Ben forgets the file that went, so its records do not grow with every vector.
        try trio.ben.sync(shared)
        let remembered = try trio.ben.syncRecords(shared.folder).keys.filter {
            $0.hasPrefix("vector:" + shared.memberDirectory(trio.ann.author))
        }
        #expect(remembered == ["vector:" + after[0]])
    }

    /// The wall clock steps back an hour after a bundle is retired: removal waits, it never
    /// comes early.
    @Test func aClockSteppedBackOnlyDelaysRemoval() throws {
        let trio = try Trio()
        try trio.ann.replica.addPlayer(name: "Cleo")
        try trio.ann.sync(trio.shared)
        try trio.ben.sync(trio.shared)
        try trio.mallory.sync(trio.shared)
        let retiredAt = trio.ann.clock.nowMilliseconds()
        #expect(try trio.ann.sync(trio.shared).bundlesRetired == 1)

        trio.ann.clock.set(retiredAt - 3_600_000)
        #expect(try trio.ann.sync(trio.shared).bundlesDeleted == 0)
        trio.ann.clock.set(retiredAt + FolderLayout.gracePeriodMilliseconds - 10)
        #expect(try trio.ann.sync(trio.shared).bundlesDeleted == 0)
        trio.ann.clock.set(retiredAt + FolderLayout.gracePeriodMilliseconds + 10)
        #expect(try trio.ann.sync(trio.shared).bundlesDeleted == 1)
        #expect(trio.shared.bundles(of: trio.ann.author).isEmpty)
    }

    /// A member whose directory holds only `vector.hzv` (written by an earlier build) is
    /// proven by it, and gets what it lacks.
    @Test func aVectorInTheFirstLayoutIsStillRead() throws {
        let trio = try Trio()
        let dan = try Peer("dan-phone", owner: "Dan", keySeed: 54, start: baseTime + 9_000)
        try trio.shared.put(try dan.sealedBundle([]), at: trio.shared.memberDirectory(dan.author) + "/vector.hzv")
        let report = try trio.ann.sync(trio.shared)
        #expect(report.members == 3 && report.ignored.isEmpty && report.rejected.isEmpty)
        #expect(report.bundlesWritten == 1, "Dan lacks everything")
    }
}
