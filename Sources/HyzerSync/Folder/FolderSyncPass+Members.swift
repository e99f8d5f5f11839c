import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Step 1 of a folder sync: what the other members wrote.
extension FolderSyncPass {
    /// Imports what the other members wrote, and returns each member's vector.
    ///
    /// A member is an author whose signed vector was once read from its directory; the highest
    /// vector it ever proved is remembered. What to write and what to delete follow, per
    /// member, the highest vector among its files now (a replayed older file beside it changes
    /// nothing; a member restored from an older backup gets what it lost), or the remembered
    /// one when its directory holds none (deleted, or not synced here yet).
    mutating func readMembers() throws -> [AuthorID: VersionVector] {
        var memberVectors: [AuthorID: VersionVector] = [:]
        var currentVectors: [AuthorID: VersionVector] = [:]
        for (record, value) in records {
            guard case .member(let member) = record, !group.removed.contains(member) else { continue }
            var reader = ByteReader(value)
            guard let vector = try? Bundle.readVector(&reader) else { continue }
            memberVectors[member] = vector
        }
        let groupDirectory = FolderLayout.groupDirectory(group)
        // What was read is remembered per file; records of files gone from directories that
        // were listed are dropped, so the records do not grow with every file ever published.
        var listedFiles: Set<String> = []
        var unlisted: Set<String> = []
        for entry in try list(groupDirectory) {
            if entry.kind == .other {
                report.rejected.append(.init(file: groupDirectory + "/" + entry.name, reason: FolderSync.notFollowed))
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
                listedFiles.formUnion(refuseRemovedMember(member, directory))
                continue
            }
            let entries: [FolderEntry]
            do {
                entries = try list(directory)
            } catch {
                report.rejected.append(.init(file: directory, reason: FolderSync.reason(error)))
                unlisted.insert(directory + "/")
                continue
            }
            listedFiles.formUnion(entries.map { directory + "/" + $0.name })
            var proven: VersionVector?
            for file in entries where file.kind == .file && FolderLayout.isVectorName(file.name) {
                guard let vector = readVector(directory + "/" + file.name, file, member: member) else { continue }
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
                    save(.member(member), writer.bytes)
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
                    report.rejected.append(.init(file: path, reason: FolderSync.notFollowed))
                } else if FolderLayout.isVectorName(file.name), !file.isDirectory {
                    continue
                } else if FolderLayout.isBundleName(file.name), !file.isDirectory {
                    try importBundle(path, file, member: member)
                } else {
                    report.ignored.append(path)
                }
            }
        }
        report.members = memberVectors.count
        for (record, _) in records {
            guard let path = record.memberFilePath, !listedFiles.contains(path), !unlisted.contains(where: { path.hasPrefix($0) })
            else { continue }
            remember(record, nil)
        }
        currentVectors.merge(memberVectors) { current, _ in current }
        return currentVectors
    }

    /// A removed device is no member: its files are never read, each reported once. Returns the
    /// paths listed in its directory.
    private mutating func refuseRemovedMember(_ member: AuthorID, _ directory: String) -> [String] {
        let files = (try? list(directory)) ?? []
        for file in files where file.kind == .file && FolderLayout.isBundleName(file.name) {
            let path = directory + "/" + file.name
            let fingerprint = FolderRecord.fingerprint(file)
            guard !(records[.bundleFile(path: path)]?.starts(with: fingerprint) ?? false) else { continue }
            report.rejected.append(.init(file: path, reason: FolderSync.removedMemberFile(member)))
            remember(.bundleFile(path: path), fingerprint + [FolderSync.refusedForContent, Bundle.formatVersion])
        }
        return files.map { directory + "/" + $0.name }
    }

    /// The vector in one of `member`'s vector files, or `nil` (reported) when the file fails
    /// a check. Remembered by path, size and modification time.
    private mutating func readVector(_ path: String, _ file: FolderEntry, member: AuthorID) -> VersionVector? {
        let record = FolderRecord.vectorFile(path: path)
        let refused = FolderRecord.refusedVectorFile(path: path)
        let fingerprint = FolderRecord.fingerprint(file)
        if let cached = records[record], cached.starts(with: fingerprint) {
            var reader = ByteReader(cached.dropFirst(fingerprint.count))
            if let vector = try? Bundle.readVector(&reader) { return vector }
        }
        switch FolderSync.refusal(records[refused], fingerprint, group) {
        case .decided: return nil
        case .setAside(let rejection):
            waiting.append(.init(rejection: .init(file: path, reason: rejection), isNew: false))
            return nil
        case .unread: break
        }
        guard file.size <= FolderLayout.maximumVectorBytes else {
            refuseTooLarge(path, file, limit: FolderLayout.maximumVectorBytes, record: refused)
            return nil
        }
        guard FolderSync.mayRead(file, report) else {
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
            remember(record, writer.bytes)
            remember(refused, nil)
            return bundle.senderVector
        } catch BundleError.unknownEpoch(let epoch, let newest) where epoch > newest {
            waiting.append(
                .init(rejection: .init(file: path, reason: FolderSync.reason(BundleError.unknownEpoch(epoch, newest: newest))), isNew: true)
            )
            report.bytesRefused += read
            remember(refused, fingerprint + FolderSync.setAsideRecord(epoch))
            return nil
        } catch let error as BundleError {
            report.rejected.append(.init(file: path, reason: FolderSync.reason(error)))
            report.bytesRefused += read
            remember(refused, fingerprint + [FolderSync.refusedForContent, Bundle.formatVersion])
            return nil
        } catch {
            // Not readable now (an I/O error, a placeholder not yet downloaded): tried again next sync.
            report.rejected.append(.init(file: path, reason: FolderSync.reason(error)))
            return nil
        }
    }

    private mutating func importBundle(_ path: String, _ file: FolderEntry, member: AuthorID) throws {
        let record = FolderRecord.bundleFile(path: path)
        let fingerprint = FolderRecord.fingerprint(file)
        switch FolderSync.refusal(records[record], fingerprint, group) {
        case .decided:
            report.bundlesSkipped += 1
            return
        case .setAside(let reason):
            waiting.append(.init(rejection: .init(file: path, reason: reason), isNew: false))
            return
        case .unread: break
        }
        guard file.size <= FolderLayout.maximumBundleBytes else {
            refuseTooLarge(path, file, limit: FolderLayout.maximumBundleBytes, record: record)
            return
        }
        guard FolderSync.mayRead(file, report) else {
            report.filesDeferred += 1
            return
        }
        var read = 0
        do {
            let bytes = try folder.read(path, maximumBytes: FolderLayout.maximumBundleBytes)
            report.bytesRead += bytes.count
            read = bytes.count
            guard FolderLayout.bundleName(contentHash: Blake2b.hash256(bytes)) == FolderLayout.fileName(of: path) else {
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
            remember(record, fingerprint + [1])
        } catch let error as ReplicaError {
            throw error  // the store itself failed: stop, nothing is recorded as read
        } catch let error as BundleError {
            report.bytesRefused += read
            if case .unknownEpoch(let epoch, let newest) = error, epoch > newest {
                // Sealed under a key the organizer's rekey brings: read again once this replica
                // holds that epoch, never before (a forged epoch costs one read).
                waiting.append(.init(rejection: .init(file: path, reason: FolderSync.reason(error)), isNew: true))
                remember(record, fingerprint + FolderSync.setAsideRecord(epoch))
                return
            }
            report.rejected.append(.init(file: path, reason: FolderSync.reason(error)))
            // A file whose content is wrong is read again only when it changes; one of a newer
            // format is read again by a build that reads more formats.
            remember(record, fingerprint + [FolderSync.refusedForContent, Bundle.formatVersion])
        } catch {
            // The file could not be read (an I/O error, a placeholder not yet downloaded):
            // try again next time.
            report.rejected.append(.init(file: path, reason: FolderSync.reason(error)))
        }
    }

    /// Refuses `file` by its size, before a byte is read, and remembers it under `record` like a
    /// refused content.
    private mutating func refuseTooLarge(_ path: String, _ file: FolderEntry, limit: Int, record: FolderRecord) {
        report.rejected.append(
            .init(file: path, reason: FolderSync.reason(FolderError.tooLarge(path: path, size: file.size, limit: limit))))
        remember(record, FolderRecord.fingerprint(file) + [FolderSync.refusedForContent, Bundle.formatVersion])
    }
}
