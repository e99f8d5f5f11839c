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

    private var scope: String { "folder:" + folder.identity }

    /// One sync: reads the other members' new files (then signs this device's receipts of rounds
    /// whose finish they brought: `Replica.afterIngest`), writes what some member lacks, publishes this
    /// replica's vector, decides join requests and retires bundles every member holds. Files refused
    /// for their content are reported, not thrown. Throws `GroupError` without a group (or before admission),
    /// `FolderError` when the folder cannot be listed or written, and `ReplicaError` when the store fails.
    /// Blocks the calling thread on file and store I/O.
    public func run() throws -> FolderSyncReport {
        var group = try replica.requireGroup()
        var report = FolderSyncReport()
        var records = try replica.syncRecords(scope)
        var updates: [String: [UInt8]?] = [:]
        let now = replica.wallClockMilliseconds()
        let myDirectory = FolderLayout.memberDirectory(group, replica.author)
        try folder.makeDirectory(myDirectory)

        // 1. Read what the other members wrote. Files sealed under a newer key than this replica
        // holds wait; when what was read brings the organizer's rekey, they are read at once.
        var waiting: [SetAside] = []
        var memberVectors = try readMembers(group, &records, &updates, &report, &waiting)
        if !waiting.isEmpty, let newer = try replica.group(), newer.epoch > group.epoch {
            group = newer
            waiting = []
            memberVectors = try readMembers(group, &records, &updates, &report, &waiting)
        }
        // A file set aside in an earlier sync is not reported again, nor read, until this
        // replica holds its epoch.
        report.rejected += waiting.filter(\.isNew).map(\.rejection)
        report.devicesAdmitted = try FolderJoin(replica: replica, folder: folder).answer(group, &records, &updates, &report)
        // What follows every ingest: receipts of rounds whose finish arrived, written below with
        // this very sync (`Replica.afterIngest`).
        try replica.afterIngest(finishesApplied: report.finishesIngested)

        // 2. Write what some member lacks and no bundle of ours already holds.
        let mine = try folder.list(myDirectory)
        let present = Set(mine.filter { !$0.isDirectory }.map(\.name))
        for key in records.keys where key.hasPrefix("mine:") && !present.contains(String(key.dropFirst(5))) {
            records[key] = nil
            updates[key] = .some(nil)
        }
        let vector = try replica.versionVector()
        let lacking = Self.lowest(memberVectors.values, authors: vector.heads.keys)
        let written = records.filter { $0.key.hasPrefix("mine:") }.values
            .compactMap(BundleRanges.init(encoded:)).flatMap(\.ranges).sorted { $0.first < $1.first }
        var from = vector
        for (author, head) in vector.heads {
            let start = Self.deltaStart(of: author, lacking: lacking, written: written)
            if head > start { from[author] = start }
        }
        from.formEvidenceNeeds(of: memberVectors.values, local: vector)
        let segments = try replica.delta(above: from)
        if !segments.isEmpty {
            let bundle = Bundle(groupID: group.id, sender: replica.author, senderVector: vector, segments: segments)
            let sealed = SealedFile.seal(bundle.encoded(signedBy: replica.signature(of:)), group: group)
            let name = FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
            guard sealed.count <= FolderLayout.maximumBundleBytes else {
                throw FolderError.tooLarge(
                    path: myDirectory + "/" + name, size: UInt64(sealed.count), limit: FolderLayout.maximumBundleBytes)
            }
            // Recorded before it is written: a bundle that exists is always known, so it is
            // deleted in time; a record whose write failed is dropped at the next sync.
            try replica.updateSyncRecords(scope, ["mine:" + name: BundleRanges(segments).encoded()])
            do {
                try folder.writeAtomically(myDirectory + "/" + name, sealed)
            } catch {
                try? replica.updateSyncRecords(scope, ["mine:" + name: nil])
                throw error
            }
            records["mine:" + name] = BundleRanges(segments).encoded()
            report.bundlesWritten += 1
            report.bytesWritten += sealed.count
        }

        try writeRekey(group, vector: vector, &records, &report)

        // 3. Publish this replica's vector; 4. retire and remove what is no longer needed.
        try publishVector(vector, group, now: now, present: present, records, &updates, &report)
        try retire(memberVectors: memberVectors, group, now: now, present: present, records, &updates, &report)
        try replica.updateSyncRecords(scope, updates)
        report.opsPending = try replica.pendingOpCount()
        return report
    }

    /// Step 1: imports what the other members wrote, and returns each member's vector.
    ///
    /// A member is an author whose signed vector was once read from its directory; the highest
    /// vector it ever proved is remembered. What to write and what to delete follow, per
    /// member, the highest vector among its files now (a replayed older file beside it changes
    /// nothing; a member restored from an older backup gets what it lost), or the remembered
    /// one when its directory holds none (deleted, or not synced here yet).
    private func readMembers(
        _ group: GroupMembership, _ records: inout [String: [UInt8]], _ updates: inout [String: [UInt8]?], _ report: inout FolderSyncReport,
        _ waiting: inout [SetAside]
    ) throws -> [AuthorID: VersionVector] {
        var memberVectors: [AuthorID: VersionVector] = [:]
        var currentVectors: [AuthorID: VersionVector] = [:]
        for (key, value) in records where key.hasPrefix("member:") {
            var reader = ByteReader(value)
            guard let member = AuthorID(hex: String(key.dropFirst(7))), let vector = try? Bundle.readVector(&reader) else { continue }
            guard !group.removed.contains(member) else { continue }
            memberVectors[member] = vector
        }
        let groupDirectory = FolderLayout.groupDirectory(group)
        // What was read is remembered per file; records of files gone from directories that
        // were listed are dropped, so the records do not grow with every file ever published.
        var listedFiles: Set<String> = []
        var unlisted: Set<String> = []
        for entry in try folder.list(groupDirectory) {
            if entry.kind == .other {
                report.rejected.append(.init(file: groupDirectory + "/" + entry.name, reason: Self.notFollowed))
                continue
            }
            if entry.isDirectory, entry.name == FolderJoin.directoryName { continue }
            guard entry.isDirectory, let member = AuthorID(hex: entry.name), entry.name == member.hex else {
                report.ignored.append(groupDirectory + "/" + entry.name)
                continue
            }
            guard member != replica.author else { continue }
            let directory = groupDirectory + "/" + entry.name
            if group.removed.contains(member) {
                // A removed device is no member: its files are never read, each reported once.
                let files = (try? folder.list(directory)) ?? []
                for file in files where file.kind == .file && FolderLayout.isBundleName(file.name) {
                    let path = directory + "/" + file.name
                    listedFiles.insert(path)
                    let fingerprint = Self.fingerprint(file)
                    guard !(records["file:" + path]?.starts(with: fingerprint) ?? false) else { continue }
                    report.rejected.append(.init(file: path, reason: Self.removedMemberFile(member)))
                    records["file:" + path] = fingerprint + [2, Bundle.formatVersion]
                    updates["file:" + path] = fingerprint + [2, Bundle.formatVersion]
                }
                listedFiles.formUnion(files.map { directory + "/" + $0.name })
                continue
            }
            let entries: [FolderEntry]
            do {
                entries = try folder.list(directory)
            } catch {
                report.rejected.append(.init(file: directory, reason: Self.reason(error)))
                unlisted.insert(directory + "/")
                continue
            }
            listedFiles.formUnion(entries.map { directory + "/" + $0.name })
            var proven: VersionVector?
            for file in entries where file.kind == .file && FolderLayout.isVectorName(file.name) {
                guard
                    let vector = readVector(directory + "/" + file.name, file, member: member, group, &records, &updates, &report, &waiting)
                else { continue }
                proven = proven ?? VersionVector()
                proven?.formMaximum(vector)
            }
            if let proven {
                currentVectors[member] = proven
                var highest = memberVectors[member] ?? VersionVector()
                highest.formMaximum(proven)
                if memberVectors[member] != highest {
                    memberVectors[member] = highest
                    var writer = ByteWriter()
                    Bundle.write(highest, into: &writer)
                    updates["member:" + member.hex] = writer.bytes
                }
            }
            // A member whose vector is sealed under an epoch this replica does not hold yet (the
            // organizer rekeyed before this replica ever read it) is not proven, but its bundles
            // are read: one of them may be the rekey bundle, sealed under the old epoch, that
            // brings the new one. Each bundle is authenticated on its own.
            let awaitingRekey = waiting.contains { $0.rejection.file.hasPrefix(directory + "/") }
            guard memberVectors[member] != nil || awaitingRekey else {
                // Named like an author, but nothing in it proves one: not a member.
                report.ignored.append(directory)
                continue
            }
            for file in entries {
                let path = directory + "/" + file.name
                if file.kind == .other {
                    report.rejected.append(.init(file: path, reason: Self.notFollowed))
                } else if FolderLayout.isVectorName(file.name), !file.isDirectory {
                    continue
                } else if FolderLayout.isBundleName(file.name), !file.isDirectory {
                    try importBundle(path, file, member: member, group, &records, &updates, &report, &waiting)
                } else {
                    report.ignored.append(path)
                }
            }
        }
        report.members = memberVectors.count
        for key in records.keys where key.hasPrefix("vector:") || key.hasPrefix("file:") || key.hasPrefix(Self.refusedPrefix) {
            let path = key.drop { $0 != ":" }.dropFirst()
            guard !listedFiles.contains(String(path)), !unlisted.contains(where: { path.hasPrefix($0) }) else { continue }
            records[key] = nil
            updates[key] = .some(nil)
        }
        currentVectors.merge(memberVectors) { current, _ in current }
        return currentVectors
    }

    /// Step 3: publishes this replica's vector when it changed, under a new name; the file it
    /// replaces (and one in the old `vector.hzv` layout) is retired, not removed.
    private func publishVector(
        _ vector: VersionVector, _ group: GroupMembership, now: UInt64, present: Set<String>,
        _ records: [String: [UInt8]], _ updates: inout [String: [UInt8]?], _ report: inout FolderSyncReport
    ) throws {
        let myDirectory = FolderLayout.memberDirectory(group, replica.author)
        let published = Bundle(groupID: group.id, sender: replica.author, senderVector: vector, segments: [])
        let vectorBytes = published.encoded(signedBy: replica.signature(of:))
        var current = records["publishedFile"].map { String(decoding: $0, as: UTF8.self) }
        if records["published"] != vectorBytes || !present.contains(current ?? "") {
            let sealed = SealedFile.seal(vectorBytes, group: group)
            let name = FolderLayout.vectorName(contentHash: Blake2b.hash256(sealed))
            try folder.writeAtomically(myDirectory + "/" + name, sealed)
            updates["published"] = vectorBytes
            updates["publishedFile"] = Array(name.utf8)
            current = name
            report.vectorPublished = true
            report.bytesWritten += sealed.count
        }
        for name in present.sorted() where FolderLayout.isVectorName(name) && name != current && records["retire:" + name] == nil {
            updates["retire:" + name] = Self.encode(now)
        }
    }

    /// Step 4: retires our bundles that every member holds, and removes what was retired a
    /// grace period ago, so a sync tool still copying a file never loses it mid-transfer.
    private func retire(
        memberVectors: [AuthorID: VersionVector], _ group: GroupMembership, now: UInt64, present: Set<String>,
        _ records: [String: [UInt8]], _ updates: inout [String: [UInt8]?], _ report: inout FolderSyncReport
    ) throws {
        let myDirectory = FolderLayout.memberDirectory(group, replica.author)
        if !memberVectors.isEmpty {
            for (key, value) in records.sorted(by: { $0.key < $1.key }) where key.hasPrefix("mine:") || key.hasPrefix("keys:") {
                guard let ranges = BundleRanges(encoded: value),
                    memberVectors.values.allSatisfy({ member in ranges.ranges.allSatisfy { member[$0.author] >= $0.last } })
                else { continue }
                updates[key] = .some(nil)
                updates["retire:" + key.dropFirst(5)] = Self.encode(now)
                report.bundlesRetired += 1
            }
        }
        for (key, value) in records.sorted(by: { $0.key < $1.key }) where key.hasPrefix("retire:") {
            let name = String(key.dropFirst(7))
            var reader = ByteReader(value)
            let since = (try? reader.readUInt64()) ?? 0
            guard present.contains(name) else {
                updates[key] = .some(nil)
                continue
            }
            guard now >= since, now - since >= FolderLayout.gracePeriodMilliseconds else { continue }
            try folder.remove(myDirectory + "/" + name)
            updates[key] = .some(nil)
            if FolderLayout.isBundleName(name) { report.bundlesDeleted += 1 }
        }
    }

    private static func encode(_ milliseconds: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(milliseconds)
        return writer.bytes
    }

    /// Why a file in a removed device's directory is not read.
    static func removedMemberFile(_ member: AuthorID) -> String {
        "it lies in the directory of device \(member.short), which was removed from the group; it is not read"
    }

    /// After a rekey, any member (the organizer or one that holds the rekey op signed): writes once
    /// the organizer's log up to the rekey op, sealed under the previous epoch, so that members
    /// still holding only that one learn the new key from the folder, whether or not the
    /// organizer itself syncs this folder. It holds nothing written after the rekey. It is
    /// retired like our other bundles, once every member's vector holds the rekey op.
    private func writeRekey(
        _ group: GroupMembership, vector: VersionVector, _ records: inout [String: [UInt8]], _ report: inout FolderSyncReport
    ) throws {
        guard group.epoch > 0, records["rekey:\(group.epoch)"] == nil, group.secrets[group.epoch - 1] != nil,
            let rekey = try replica.rekeyOp(epoch: group.epoch)
        else { return }
        let segments = try replica.log(of: rekey.organizer, through: rekey.sequence)
        guard !segments.isEmpty else { return }
        let bundle = Bundle(
            groupID: group.id, sender: replica.author, senderVector: VersionVector([rekey.organizer: rekey.sequence]), segments: segments)
        let sealed = SealedFile.seal(bundle.encoded(signedBy: replica.signature(of:)), group: group, epoch: group.epoch - 1)
        let name = FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        let ranges = BundleRanges(segments).encoded()
        try replica.updateSyncRecords(scope, ["keys:" + name: ranges, "rekey:\(group.epoch)": [1]])
        try folder.writeAtomically(FolderLayout.memberDirectory(group, replica.author) + "/" + name, sealed)
        records["keys:" + name] = ranges
        records["rekey:\(group.epoch)"] = [1]
        report.bundlesWritten += 1
        report.bytesWritten += sealed.count
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

    /// A file's identity for "already read": its size and modification time.
    static func fingerprint(_ file: FolderEntry) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(file.size)
        writer.write(file.modified)
        return writer.bytes
    }

    /// The vector in one of `member`'s vector files, or `nil` (reported) when the file fails
    /// a check. Remembered by path, size and modification time.
    private func readVector(
        _ path: String, _ file: FolderEntry, member: AuthorID, _ group: GroupMembership,
        _ records: inout [String: [UInt8]], _ updates: inout [String: [UInt8]?], _ report: inout FolderSyncReport,
        _ waiting: inout [SetAside]
    ) -> VersionVector? {
        let key = "vector:" + path
        let fingerprint = Self.fingerprint(file)
        if let cached = records[key], cached.starts(with: fingerprint) {
            var reader = ByteReader(cached.dropFirst(fingerprint.count))
            if let vector = try? Bundle.readVector(&reader) { return vector }
        }
        switch Self.refusal(records[Self.refusedPrefix + path], fingerprint, group) {
        case .decided: return nil
        case .setAside(let rejection):
            waiting.append(SetAside(rejection: .init(file: path, reason: rejection), isNew: false))
            return nil
        case .unread: break
        }
        guard file.size <= FolderLayout.maximumVectorBytes else {
            refuseTooLarge(path, file, limit: FolderLayout.maximumVectorBytes, key: Self.refusedPrefix + path, &records, &updates, &report)
            return nil
        }
        guard Self.mayRead(file, report) else {
            report.filesDeferred += 1
            return nil
        }
        var read = 0
        do {
            let bytes = try folder.read(path, maximumBytes: FolderLayout.maximumVectorBytes)
            report.bytesRead += bytes.count
            read = bytes.count
            let bundle = try Bundle.openAdmitted(bytes, group: group)
            guard bundle.sender == member else { throw BundleError.misplaced(sender: bundle.sender, directory: member.short) }
            var writer = ByteWriter()
            writer.write(raw: fingerprint)
            Bundle.write(bundle.senderVector, into: &writer)
            records[key] = writer.bytes
            updates[key] = writer.bytes
            remember(Self.refusedPrefix + path, nil, &records, &updates)
            return bundle.senderVector
        } catch BundleError.unknownEpoch(let epoch, let newest) where epoch > newest {
            waiting.append(
                SetAside(rejection: .init(file: path, reason: Self.reason(BundleError.unknownEpoch(epoch, newest: newest))), isNew: true))
            report.bytesRefused += read
            remember(Self.refusedPrefix + path, fingerprint + Self.setAsideRecord(epoch), &records, &updates)
            return nil
        } catch let error as BundleError {
            report.rejected.append(.init(file: path, reason: Self.reason(error)))
            report.bytesRefused += read
            remember(Self.refusedPrefix + path, fingerprint + [Self.refusedForContent, Bundle.formatVersion], &records, &updates)
            return nil
        } catch {
            // Not readable now (an I/O error, a placeholder not yet downloaded): tried again next sync.
            report.rejected.append(.init(file: path, reason: Self.reason(error)))
            return nil
        }
    }

    private func importBundle(
        _ path: String, _ file: FolderEntry, member: AuthorID, _ group: GroupMembership,
        _ records: inout [String: [UInt8]], _ updates: inout [String: [UInt8]?], _ report: inout FolderSyncReport,
        _ waiting: inout [SetAside]
    ) throws {
        let key = "file:" + path
        let fingerprint = Self.fingerprint(file)
        switch Self.refusal(records[key], fingerprint, group) {
        case .decided:
            report.bundlesSkipped += 1
            return
        case .setAside(let reason):
            waiting.append(SetAside(rejection: .init(file: path, reason: reason), isNew: false))
            return
        case .unread: break
        }
        guard file.size <= FolderLayout.maximumBundleBytes else {
            refuseTooLarge(path, file, limit: FolderLayout.maximumBundleBytes, key: key, &records, &updates, &report)
            return
        }
        guard Self.mayRead(file, report) else {
            report.filesDeferred += 1
            return
        }
        var read = 0
        do {
            let bytes = try folder.read(path, maximumBytes: FolderLayout.maximumBundleBytes)
            report.bytesRead += bytes.count
            read = bytes.count
            guard FolderLayout.bundleName(contentHash: Blake2b.hash256(bytes)) == (path as NSString).lastPathComponent else {
                throw BundleError.contentHashMismatch
            }
            let bundle = try Bundle.openAdmitted(bytes, group: group)
            guard bundle.sender == member else { throw BundleError.misplaced(sender: bundle.sender, directory: member.short) }
            let ingest = try replica.ingest(bundle.segments)
            report.bundlesRead += 1
            report.opsIngested += ingest.opsApplied
            report.finishesIngested += ingest.finishesApplied
            report.opsAlreadyHeld += ingest.opsAlreadyHeld
            for error in ingest.rejected { report.rejected.append(.init(file: path, reason: error.description)) }
            updates[key] = fingerprint + [1]
            records[key] = fingerprint + [1]
        } catch let error as ReplicaError {
            throw error  // the store itself failed: stop, nothing is recorded as read
        } catch let error as BundleError {
            report.bytesRefused += read
            if case .unknownEpoch(let epoch, let newest) = error, epoch > newest {
                // Sealed under a key the organizer's rekey brings: read again once this replica
                // holds that epoch, never before (a forged epoch costs one read).
                waiting.append(SetAside(rejection: .init(file: path, reason: Self.reason(error)), isNew: true))
                remember(key, fingerprint + Self.setAsideRecord(epoch), &records, &updates)
                return
            }
            report.rejected.append(.init(file: path, reason: Self.reason(error)))
            // A file whose content is wrong is read again only when it changes; one of a newer
            // format is read again by a build that reads more formats.
            remember(key, fingerprint + [Self.refusedForContent, Bundle.formatVersion], &records, &updates)
        } catch {
            // The file could not be read (an I/O error, a placeholder not yet downloaded):
            // try again next time.
            report.rejected.append(.init(file: path, reason: Self.reason(error)))
        }
    }
}
