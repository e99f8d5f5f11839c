import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Sync through a shared folder (docs/folder-sync.md): import what the other members wrote,
/// write what some member lacks into this replica's own directory, publish this replica's
/// version vector, and delete its own bundles that every member holds.
///
/// What was already read is remembered by name, size and modification time, so a sync of an
/// unchanged folder costs directory listings, not reads.
public struct FolderSync {
    /// The replica that syncs.
    public let replica: Replica
    /// The shared folder.
    public let folder: any SharedFolder

    /// A folder sync of `replica` through `folder`; nothing is read until `run()`.
    public init(replica: Replica, folder: any SharedFolder) {
        self.replica = replica
        self.folder = folder
    }

    /// The scope a folder's records are kept under in the store.
    static func scope(_ folder: any SharedFolder) -> String { "folder:" + folder.identity }

    /// One sync: reads the other members' new files (then signs this device's receipts of rounds
    /// whose finish they brought: `Replica.afterIngest`), writes what some member lacks, publishes this
    /// replica's vector, decides join requests and retires bundles every member holds. Files refused
    /// for their content are reported, not thrown. Throws `GroupError` without a group (or before admission),
    /// `FolderError` when the folder cannot be listed or written, and `ReplicaError` when the store fails.
    /// Blocks the calling thread on file and store I/O.
    public func run() throws -> FolderSyncReport {
        var pass = try FolderSyncPass(replica: replica, folder: folder, group: try replica.requireGroup())
        try folder.makeDirectory(pass.myDirectory)
        // Where the folder lists the group's whole directory at once (a bucket), one listing
        // serves the run: a sync that finds nothing new costs one request (docs/bucket-sync.md).
        pass.tree = try folder.listTree(FolderLayout.groupDirectory(pass.group))

        // 1. Read what the other members wrote. Files sealed under a newer key than this replica
        // holds wait; when what was read brings the organizer's rekey, they are read at once.
        var memberVectors = try pass.readMembers()
        if !pass.waiting.isEmpty, let newer = try replica.group(), newer.epoch > pass.group.epoch {
            pass.group = newer
            pass.waiting = []
            memberVectors = try pass.readMembers()
        }
        // A file set aside in an earlier sync is not reported again, nor read, until this
        // replica holds its epoch.
        pass.report.rejected += pass.waiting.filter(\.isNew).map(\.rejection)
        pass.report.devicesAdmitted = try pass.answerJoinRequests()
        // What follows every ingest: receipts of rounds whose finish arrived, written below with
        // this very sync (`Replica.afterIngest`).
        try replica.afterIngest(finishesApplied: pass.report.finishesIngested)

        // 2. Write what some member lacks and no bundle of ours already holds.
        let present = Set(try pass.list(pass.myDirectory).filter { !$0.isDirectory }.map(\.name))
        let vector = try replica.versionVector()
        try pass.writeLacking(memberVectors, vector: vector, present: present)
        try pass.writeRekey()

        // 3. Publish this replica's vector; 4. retire and remove what is no longer needed.
        try pass.publishVector(vector, present: present)
        try pass.retire(memberVectors: memberVectors, present: present)
        try pass.saveUpdates()
        pass.report.opsPending = try replica.pendingOpCount()
        return pass.report
    }

    /// Why a file in a removed device's directory is not read.
    static func removedMemberFile(_ member: AuthorID) -> String {
        "it lies in the directory of device \(member.short), which was removed from the group; it is not read"
    }

    /// A refusal's reason: a folder error's own words (the report names the file already).
    static func reason(_ error: any Error) -> String {
        (error as? FolderError)?.reason ?? "\(error)"
    }

    /// Why a symbolic link, FIFO, socket or device in the folder is refused.
    static let notFollowed = "a symbolic link or special file, which hyzer-peer never opens or follows"

    /// For each author, the lowest sequence number any member holds (0 for a member that has
    /// none). With no members, nothing is known to be held.
    static func lowest(_ vectors: some Collection<VersionVector>, authors: some Collection<AuthorID>) -> VersionVector {
        var lowest = VersionVector()
        guard !vectors.isEmpty else { return lowest }
        for author in authors { lowest[author] = vectors.map { $0[author] }.min() ?? 0 }
        return lowest
    }

    /// The sequence after which `author`'s ops still need writing: what every member holds,
    /// moved past the ranges our bundles already carry (`written`, sorted by first sequence).
    /// Members' vectors come from their files: `range.last > start` is tested first, so `start + 1`
    /// cannot overflow whatever a vector says.
    static func deltaStart(of author: AuthorID, lacking: VersionVector, written: [BundleRanges.Range]) -> UInt64 {
        var start = lacking[author]
        for range in written where range.author == author && range.last > start && range.first <= start + 1 {
            start = range.last
        }
        return start
    }
}
