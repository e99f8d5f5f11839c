import Foundation
import HyzerDomain
import HyzerKit

/// Joining through a shared folder (docs/folder-sync.md, "Joining"): the invited device writes
/// its request as `hyzer/<group id>/joins/<device>.hzj`; a member's folder sync decides it and
/// writes the reply beside it as `<device>.hza`: the answer, or a refusal authenticated with the
/// invitation key. Nothing in this directory is trusted without that key.
public struct FolderJoin {
    public let replica: Replica
    public let folder: any SharedFolder

    static let directoryName = "joins"
    static let requestExtension = ".hzj"
    static let replyExtension = ".hza"
    /// Requests a member decides in one sync; the rest wait for the next.
    static let requestsPerSyncMax = 64
    /// More than any reply; a bound on what is read.
    static let replyBytesMax = 1_024

    public init(replica: Replica, folder: any SharedFolder) {
        self.replica = replica
        self.folder = folder
    }

    static func directory(_ groupID: UUID) -> String {
        "hyzer/\(groupID.lowercased)/\(directoryName)"
    }

    /// The invited side: reads a member's reply to this device's request if there is one (an
    /// answer makes this replica a member at once); otherwise writes the request (again, if it
    /// is not there or is for an older invitation) and returns `nil`. Once admitted, the
    /// request and its reply are removed.
    public func ask() throws -> JoinReply? {
        guard let invitation = try replica.pendingInvitation() else { return nil }
        let request = JoinRequest(invitation: invitation, device: replica.author)
        let directory = Self.directory(invitation.groupID)
        let requestPath = directory + "/" + replica.author.hex + Self.requestExtension
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
    func answer(_ group: GroupMembership, _ report: inout FolderSyncReport) throws -> Int {
        let directory = Self.directory(group.id)
        let entries = try folder.list(directory)
        let names = Set(entries.map(\.name))
        var admitted = 0
        var decided = 0
        for entry in entries.sorted(by: { $0.name < $1.name }) where entry.name.hasSuffix(Self.requestExtension) {
            let stem = String(entry.name.dropLast(Self.requestExtension.count))
            guard entry.kind == .file, let device = AuthorID(hex: stem), device.hex == stem else { continue }
            guard !names.contains(stem + Self.replyExtension), decided < Self.requestsPerSyncMax else { continue }
            decided += 1
            let path = directory + "/" + entry.name
            guard entry.size == UInt64(JoinRequest.byteCount),
                let request = JoinRequest(decoding: try folder.read(path, maximumBytes: JoinRequest.byteCount)),
                request.device == device, request.groupID == group.id
            else {
                report.rejected.append(.init(file: path, reason: "not a join request"))
                continue
            }
            let admission = try replica.admit(request)
            if let reply = admission.reply { try folder.writeAtomically(directory + "/" + stem + Self.replyExtension, reply) }
            if let refusal = admission.refusal {
                // Another member may hold the invitation; a request that proves nothing waits silently.
                if admission.reply != nil { report.rejected.append(.init(file: path, reason: "join refused: \(refusal)")) }
            } else {
                admitted += 1
            }
        }
        return admitted
    }
}
