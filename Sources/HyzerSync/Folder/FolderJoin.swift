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
            // Where objects are written once (a bucket), the stale request goes first.
            if entries[replica.author.hex + Self.requestExtension] != nil { try folder.remove(requestPath) }
            try folder.writeAtomically(requestPath, request.bytes)
        }
        return nil
    }

    // Requests decided without a reply are remembered (`FolderRecord.joinRequest`): their
    // fingerprint, then one of the outcomes below.
    /// Not a request for this group, or one that proves no invitation: not read again.
    static let notARequest: UInt8 = 2
    /// For an invitation this member has not heard of; followed by the invitation id, and read
    /// again once this replica's log holds that invitation.
    static let waitingForInvitation: UInt8 = 3
}
