import Foundation
import HyzerDomain
import HyzerKit

/// The member side of joining through a folder (docs/folder-sync.md, "Joining").
extension FolderSyncPass {
    /// The member side: decides each request that has no reply yet, and writes the reply.
    /// Returns how many devices it admitted; refusals are reported in `report`.
    ///
    /// Anyone with the folder can fill `joins/` with junk, so a request that proves nothing is
    /// remembered (`FolderRecord.joinRequest`) by name, size and modification time (docs/folder-sync.md,
    /// "Joining") and not read again until it changes: one that is not a request, or proves no
    /// invitation, for good; one for an invitation this member has not heard of, until that
    /// invitation reaches its log. Requests never decided come first, and at most `requestsReadPerSyncMax` are read
    /// in one sync, so junk costs one read each, once, and a valid request is always reached.
    mutating func answerJoinRequests() throws -> Int {
        let directory = FolderJoin.directory(group.id)
        let entries = try list(directory)
        let names = Set(entries.map(\.name))
        for (record, _) in records {
            guard case .joinRequest(let name) = record, !names.contains(name) else { continue }
            remember(record, nil)
        }
        var known: Set<[UInt8]>?
        func invitations() throws -> Set<[UInt8]> {
            if let known { return known }
            let ids = try replica.invitationIDs()
            known = ids
            return ids
        }
        var fresh: [FolderEntry] = []
        var retried: [FolderEntry] = []
        for entry in entries where entry.name.hasSuffix(FolderJoin.requestExtension) {
            let stem = String(entry.name.dropLast(FolderJoin.requestExtension.count))
            guard entry.kind == .file, let device = AuthorID(hex: stem), device.hex == stem else { continue }
            guard !names.contains(stem + FolderJoin.replyExtension) else { continue }
            let fingerprint = FolderRecord.fingerprint(entry)
            guard let record = records[.joinRequest(name: entry.name)], record.starts(with: fingerprint) else {
                fresh.append(entry)
                continue
            }
            let outcome = Array(record.dropFirst(fingerprint.count))
            if outcome.first == FolderJoin.waitingForInvitation, outcome.count == 1 + OpPayload.Limits.inviteIDBytes,
                try invitations().contains(Array(outcome.dropFirst()))
            {
                retried.append(entry)
            }
        }
        var admitted = 0
        var read = 0
        for entry in fresh + retried {
            guard read < FolderJoin.requestsReadPerSyncMax else {
                report.filesDeferred += 1
                continue
            }
            let stem = String(entry.name.dropLast(FolderJoin.requestExtension.count))
            let path = directory + "/" + entry.name
            let fingerprint = FolderRecord.fingerprint(entry)
            func decided(_ outcome: [UInt8]) { remember(.joinRequest(name: entry.name), fingerprint + outcome) }
            guard entry.size == UInt64(JoinRequest.byteCount) else {
                // Refused by its size alone: nothing is read.
                report.rejected.append(.init(file: path, reason: "not a join request"))
                decided([FolderJoin.notARequest])
                continue
            }
            read += 1
            let bytes: [UInt8]
            do {
                bytes = try folder.read(path, maximumBytes: JoinRequest.byteCount)
            } catch {
                // Not readable now (an I/O error, a file still arriving): tried again next sync.
                report.rejected.append(.init(file: path, reason: FolderSync.reason(error)))
                continue
            }
            report.bytesRead += bytes.count
            guard let request = JoinRequest(decoding: bytes), request.device.hex == stem, request.groupID == group.id else {
                report.rejected.append(.init(file: path, reason: "not a join request"))
                report.bytesRefused += bytes.count
                decided([FolderJoin.notARequest])
                continue
            }
            let admission = try replica.admit(request)
            if let reply = admission.reply { try folder.writeAtomically(directory + "/" + stem + FolderJoin.replyExtension, reply) }
            switch admission.refusal {
            case nil:
                admitted += 1
            case .unknownInvitation?:
                // Another member may hold the invitation, or this one may learn it: decided again
                // once this replica's log holds an invitation with that id.
                decided([FolderJoin.waitingForInvitation] + request.invitationID)
            case let refusal? where admission.reply == nil:
                // Proves no invitation (a forged or damaged request): never decided again.
                report.rejected.append(.init(file: path, reason: "join refused: \(refusal)"))
                report.bytesRefused += bytes.count
                decided([FolderJoin.notARequest])
            case let refusal?:
                report.rejected.append(.init(file: path, reason: "join refused: \(refusal)"))
            }
        }
        return admitted
    }
}
