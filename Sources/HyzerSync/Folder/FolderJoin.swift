import Foundation
import HyzerDomain
import HyzerKit

/// Joining through a shared folder (docs/folder-sync.md, "Joining"): the invited device writes
/// its request as `hyzer/<group id>/joins/<device>.hzj`; a member's folder sync decides it and
/// writes the reply beside it as `<device>.hza`: the answer, or a refusal authenticated with the
/// invitation key. Nothing in this directory is trusted without that key.
public struct FolderJoin {
    /// The replica that asks to join, or that admits.
    public let replica: Replica
    /// The folder the requests and replies travel through.
    public let folder: any SharedFolder

    static let directoryName = "joins"
    static let requestExtension = ".hzj"
    static let replyExtension = ".hza"
    /// Requests a member reads in one sync (164 bytes each, so 164 KiB); the rest wait for the
    /// next. Requests it already refused are not read again, so junk cannot hold a real one back.
    static let requestsReadPerSyncMax = 1_024
    /// More than any reply; a bound on what is read.
    static let replyBytesMax = 1_024

    /// Joining through `folder` for `replica`.
    public init(replica: Replica, folder: any SharedFolder) {
        self.replica = replica
        self.folder = folder
    }

    static func directory(_ groupID: UUID) -> String {
        "hyzer/\(groupID.lowercased)/\(directoryName)"
    }

    /// Where `device` asks to join group `groupID`: `hyzer/<group id>/joins/<device>.hzj`.
    public static func requestPath(group groupID: UUID, device: AuthorID) -> String {
        directory(groupID) + "/" + device.hex + requestExtension
    }

    /// The invited side: reads a member's reply to this device's request if there is one (an
    /// answer makes this replica a member at once); otherwise writes the request (again, if it
    /// is not there or is for an older invitation) and returns `nil`. Once admitted, the
    /// request and its reply are removed.
    public func ask() throws -> JoinReply? {
        guard let invitation = try replica.pendingInvitation() else { return nil }
        let request = JoinRequest(invitation: invitation, device: replica.author)
        let directory = Self.directory(invitation.groupID)
        let requestPath = Self.requestPath(group: invitation.groupID, device: replica.author)
        let replyPath = directory + "/" + replica.author.hex + Self.replyExtension
        try folder.makeDirectory(directory)
        let entries = Dictionary(try folder.list(directory).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if entries[replica.author.hex + Self.replyExtension]?.kind == .file,
            let reply = JoinReply(
                decoding: try folder.read(replyPath, maximumBytes: Self.replyBytesMax), invitation: invitation, device: replica.author)
        {
            if case .admitted(let answer) = reply {
                guard try replica.complete(answer) else { return nil }
                try? folder.remove(requestPath)
                try? folder.remove(replyPath)
            }
            return reply
        }
        let written =
            entries[replica.author.hex + Self.requestExtension]?.kind == .file
            ? try? folder.read(requestPath, maximumBytes: JoinRequest.byteCount) : nil
        if written != request.bytes {
            // A reply to an older request (another invitation) would stop members from answering this one.
            if entries[replica.author.hex + Self.replyExtension] != nil { try? folder.remove(replyPath) }
            try folder.writeAtomically(requestPath, request.bytes)
        }
        return nil
    }

    /// The member side: decides each request that has no reply yet, and writes the reply.
    /// Returns how many devices it admitted; refusals are reported in `report`.
    ///
    /// Anyone with the folder can fill `joins/` with junk, so a request that proves nothing is
    /// remembered in `records` by name, size and modification time (docs/folder-sync.md,
    /// "Joining") and not read again until it changes: one that is not a request, or proves no
    /// invitation, for good; one for an invitation this member has not heard of, until that
    /// invitation reaches its log. Requests never decided come first, and at most `requestsReadPerSyncMax` are read
    /// in one sync, so junk costs one read each, once, and a valid request is always reached.
    func answer(
        _ group: GroupMembership, _ records: inout [String: [UInt8]], _ updates: inout [String: [UInt8]?],
        _ report: inout FolderSyncReport
    ) throws -> Int {
        let directory = Self.directory(group.id)
        let entries = try folder.list(directory)
        let names = Set(entries.map(\.name))
        for key in records.keys where key.hasPrefix(Self.recordPrefix) && !names.contains(String(key.dropFirst(Self.recordPrefix.count))) {
            records[key] = nil
            updates[key] = .some(nil)
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
        for entry in entries where entry.name.hasSuffix(Self.requestExtension) {
            let stem = String(entry.name.dropLast(Self.requestExtension.count))
            guard entry.kind == .file, let device = AuthorID(hex: stem), device.hex == stem else { continue }
            guard !names.contains(stem + Self.replyExtension) else { continue }
            let fingerprint = FolderSync.fingerprint(entry)
            guard let record = records[Self.recordPrefix + entry.name], record.starts(with: fingerprint) else {
                fresh.append(entry)
                continue
            }
            let outcome = Array(record.dropFirst(fingerprint.count))
            if outcome.first == Self.waitingForInvitation, outcome.count == 1 + OpPayload.Limits.inviteIDBytes,
                try invitations().contains(Array(outcome.dropFirst()))
            {
                retried.append(entry)
            }
        }
        var admitted = 0
        var read = 0
        for entry in fresh + retried {
            guard read < Self.requestsReadPerSyncMax else {
                report.filesDeferred += 1
                continue
            }
            let stem = String(entry.name.dropLast(Self.requestExtension.count))
            let path = directory + "/" + entry.name
            let key = Self.recordPrefix + entry.name
            let fingerprint = FolderSync.fingerprint(entry)
            func remember(_ outcome: [UInt8]) {
                records[key] = fingerprint + outcome
                updates[key] = fingerprint + outcome
            }
            guard entry.size == UInt64(JoinRequest.byteCount) else {
                // Refused by its size alone: nothing is read.
                report.rejected.append(.init(file: path, reason: "not a join request"))
                remember([Self.notARequest])
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
                remember([Self.notARequest])
                continue
            }
            let admission = try replica.admit(request)
            if let reply = admission.reply { try folder.writeAtomically(directory + "/" + stem + Self.replyExtension, reply) }
            switch admission.refusal {
            case nil:
                admitted += 1
            case .unknownInvitation?:
                // Another member may hold the invitation, or this one may learn it: decided again
                // once this replica's log holds an invitation with that id.
                remember([Self.waitingForInvitation] + request.invitationID)
            case let refusal? where admission.reply == nil:
                // Proves no invitation (a forged or damaged request): never decided again.
                report.rejected.append(.init(file: path, reason: "join refused: \(refusal)"))
                report.bytesRefused += bytes.count
                remember([Self.notARequest])
            case let refusal?:
                report.rejected.append(.init(file: path, reason: "join refused: \(refusal)"))
            }
        }
        return admitted
    }

    /// Records of requests decided without a reply: `join:<name>` → size and modification
    /// time, then one of the outcomes below.
    static let recordPrefix = "join:"
    /// Not a request for this group, or one that proves no invitation: not read again.
    static let notARequest: UInt8 = 2
    /// For an invitation this member has not heard of; followed by the invitation id, and read
    /// again once this replica's log holds that invitation.
    static let waitingForInvitation: UInt8 = 3
}
