import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// One run of a folder sync (`FolderSync.run()`): the folder's records as the store keeps them,
/// the changes this run makes to them, saved at its end, and its report. Each step of the sync
/// is a method of the pass.
struct FolderSyncPass {
    let replica: Replica
    let folder: any SharedFolder
    /// The group, moved to a newer epoch when what was read brings the organizer's rekey.
    var group: GroupMembership
    /// The replica's wall clock when the run began.
    let now: UInt64
    /// What the run reports.
    var report = FolderSyncReport()
    /// Files sealed under an epoch this replica does not hold yet.
    var waiting: [FolderSync.SetAside] = []
    /// The records as read, with what the run remembered since.
    private(set) var records: [FolderRecord: [UInt8]] = [:]
    /// The group's directory, listed at once where the folder can (`SharedFolder.listTree(_:)`).
    var tree: FolderTree?
    /// What the run changes in the store's records, written at its end (`nil` removes one).
    private var updates: [FolderRecord: [UInt8]?] = [:]

    private var scope: String { FolderSync.scope(folder) }

    /// A pass over `folder` that starts from the records `replica` keeps of it.
    init(replica: Replica, folder: any SharedFolder, group: GroupMembership) throws {
        self.replica = replica
        self.folder = folder
        self.group = group
        now = replica.wallClockMilliseconds()
        for (key, value) in try replica.syncRecords(FolderSync.scope(folder)) {
            if let record = FolderRecord(key: key) { records[record] = value }
        }
    }

    /// The records of a kind, in key order (as the store lists them). Each key is made once: made
    /// at every comparison, sorting a large group's records cost a fifth of a sync with nothing new.
    func records(where isOfKind: (FolderRecord) -> Bool) -> [(record: FolderRecord, value: [UInt8])] {
        records.compactMap { isOfKind($0.key) ? (key: $0.key.key, record: $0.key, value: $0.value) : nil }
            .sorted { $0.key < $1.key }.map { ($0.record, $0.value) }
    }

    /// The entries of `directory`: from the tree listed at the start of the run when it holds
    /// the directory, else from the folder.
    func list(_ directory: String) throws -> [FolderEntry] {
        if let entries = tree?.entries(of: directory) { return entries }
        return try folder.list(directory)
    }

    /// Remembers `value` for `record` (nothing when it is so already), saved at the end.
    mutating func remember(_ record: FolderRecord, _ value: [UInt8]?) {
        guard records[record] != value else { return }
        records[record] = value
        updates[record] = .some(value)
    }

    /// Changes `record` in the store at the end of the run only: what this run reads of it stays
    /// as it was.
    mutating func save(_ record: FolderRecord, _ value: [UInt8]?) {
        updates[record] = .some(value)
    }

    /// Writes `values` to the store at once, and remembers them: for a record that must exist
    /// before the file it describes does.
    mutating func saveNow(_ values: [FolderRecord: [UInt8]?]) throws {
        try replica.updateSyncRecords(scope, Dictionary(uniqueKeysWithValues: values.map { ($0.key.key, $0.value) }))
        for (record, value) in values { records[record] = value }
    }

    /// Writes what the run changed to the store.
    func saveUpdates() throws {
        try replica.updateSyncRecords(scope, Dictionary(uniqueKeysWithValues: updates.map { ($0.key.key, $0.value) }))
    }

    /// This replica's own directory in the folder.
    var myDirectory: String { FolderLayout.memberDirectory(group, replica.author) }

    /// Step 2: writes, into this replica's directory, what some member lacks and no bundle of
    /// ours already holds (`present`: the files there now).
    mutating func writeLacking(_ memberVectors: [AuthorID: VersionVector], vector: VersionVector, present: Set<String>) throws {
        for (record, _) in records(where: { if case .bundle = $0 { true } else { false } })
        where !present.contains(record.ownFile ?? "") {
            remember(record, nil)
        }
        let lacking = FolderSync.lowest(memberVectors.values, authors: vector.heads.keys)
        let written = records(where: { if case .bundle = $0 { true } else { false } })
            .compactMap { BundleRanges(encoded: $0.value) }.flatMap(\.ranges).sorted { $0.first < $1.first }
        var from = vector
        for (author, head) in vector.heads {
            var start = FolderSync.deltaStart(of: author, lacking: lacking, written: written)
            // Where every member sees every object once it is written (a bucket, listed at once:
            // `tree`), a member's own ops are its own to write, and it does while any member lacks
            // them: relaying them would make each reader of a new bundle write it again, a cost
            // that grows with the group (docs/bucket-sync.md, "Requests per sync").
            if tree != nil, author != replica.author, let own = memberVectors[author]?[author] { start = max(start, min(own, head)) }
            if head > start { from[author] = start }
        }
        from.formEvidenceNeeds(of: memberVectors.values, local: vector)
        let segments = try replica.delta(above: from)
        guard !segments.isEmpty else { return }
        let bundle = Bundle(groupID: group.id, sender: replica.author, senderVector: vector, segments: segments)
        let sealed = SealedFile.seal(bundle.encoded(signedBy: replica.signature(of:)), group: group)
        let name = FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        guard sealed.count <= FolderLayout.maximumBundleBytes else {
            throw FolderError.tooLarge(path: myDirectory + "/" + name, size: UInt64(sealed.count), limit: FolderLayout.maximumBundleBytes)
        }
        // Recorded before it is written: a bundle that exists is always known, so it is
        // deleted in time; a record whose write failed is dropped at the next sync.
        let record = FolderRecord.bundle(name: name)
        try saveNow([record: BundleRanges(segments).encoded()])
        do {
            try folder.writeAtomically(myDirectory + "/" + name, sealed)
        } catch {
            try? replica.updateSyncRecords(scope, [record.key: nil])
            throw error
        }
        report.bundlesWritten += 1
        report.bytesWritten += sealed.count
    }

    /// After a rekey, any member (the organizer or one that holds the rekey op signed): writes once
    /// the organizer's log up to the rekey op, sealed under the previous epoch, so that members
    /// still holding only that one learn the new key from the folder, whether or not the
    /// organizer itself syncs this folder. It holds nothing written after the rekey. It is
    /// retired like our other bundles, once every member's vector holds the rekey op.
    mutating func writeRekey() throws {
        guard group.epoch > 0, records[.rekeyWritten(epoch: group.epoch)] == nil, group.secrets[group.epoch - 1] != nil,
            let rekey = try replica.rekeyOp(epoch: group.epoch)
        else { return }
        let segments = try replica.log(of: rekey.organizer, through: rekey.sequence)
        guard !segments.isEmpty else { return }
        let bundle = Bundle(
            groupID: group.id, sender: replica.author, senderVector: VersionVector([rekey.organizer: rekey.sequence]), segments: segments)
        let sealed = SealedFile.seal(bundle.encoded(signedBy: replica.signature(of:)), group: group, epoch: group.epoch - 1)
        let name = FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        try saveNow([.rekeyBundle(name: name): BundleRanges(segments).encoded(), .rekeyWritten(epoch: group.epoch): [1]])
        try folder.writeAtomically(myDirectory + "/" + name, sealed)
        report.bundlesWritten += 1
        report.bytesWritten += sealed.count
    }

    /// Step 3: publishes this replica's vector when it changed, under a new name; the file it
    /// replaces (and one in the old `vector.hzv` layout) is retired, not removed.
    mutating func publishVector(_ vector: VersionVector, present: Set<String>) throws {
        let published = Bundle(groupID: group.id, sender: replica.author, senderVector: vector, segments: [])
        let vectorBytes = published.encoded(signedBy: replica.signature(of:))
        var current = records[.publishedFile].map { String(decoding: $0, as: UTF8.self) }
        if records[.publishedVector] != vectorBytes || !present.contains(current ?? "") {
            let sealed = SealedFile.seal(vectorBytes, group: group)
            let name = FolderLayout.vectorName(contentHash: Blake2b.hash256(sealed))
            try folder.writeAtomically(myDirectory + "/" + name, sealed)
            save(.publishedVector, vectorBytes)
            save(.publishedFile, Array(name.utf8))
            current = name
            report.vectorPublished = true
            report.bytesWritten += sealed.count
        }
        for name in present.sorted() where FolderLayout.isVectorName(name) && name != current && records[.retired(name: name)] == nil {
            save(.retired(name: name), FolderRecord.encode(milliseconds: now))
        }
    }

    /// Step 4: retires our bundles that every member holds, and removes what was retired a
    /// grace period ago, so a sync tool still copying a file never loses it mid-transfer.
    mutating func retire(memberVectors: [AuthorID: VersionVector], present: Set<String>) throws {
        // What this step reads is the records as they stood before it: a file retired now waits
        // its grace period from the next sync on.
        let ours = records(where: { if case .bundle = $0 { true } else if case .rekeyBundle = $0 { true } else { false } })
        let retired = records(where: { if case .retired = $0 { true } else { false } })
        if !memberVectors.isEmpty {
            for (record, value) in ours {
                guard let name = record.ownFile, let ranges = BundleRanges(encoded: value),
                    memberVectors.values.allSatisfy({ member in ranges.ranges.allSatisfy { member[$0.author] >= $0.last } })
                else { continue }
                save(record, nil)
                save(.retired(name: name), FolderRecord.encode(milliseconds: now))
                report.bundlesRetired += 1
            }
        }
        for (record, value) in retired {
            guard case .retired(let name) = record else { continue }
            let since = FolderRecord.milliseconds(value)
            guard present.contains(name) else {
                save(record, nil)
                continue
            }
            guard now >= since, now - since >= FolderLayout.gracePeriodMilliseconds else { continue }
            try folder.remove(myDirectory + "/" + name)
            save(record, nil)
            if FolderLayout.isBundleName(name) { report.bundlesDeleted += 1 }
        }
    }
}
