import Foundation
import HyzerKit

extension BinaryRunner {
    /// Joins `organizer`'s group as a device does (`group invite`, then `group join` from
    /// standard input), and is admitted in place of the first sync with a member: the member's
    /// store decides the request in this process, so no op but the admission moves.
    @discardableResult
    public func join(_ organizer: BinaryRunner, uses: Int = 1) throws -> String {
        let token = try organizer.ok("group", "invite", "--uses", "\(uses)")
        let joined = try run(["group", "join", "--token-file", "-"], input: Array(token.utf8))
        guard joined.status == 0 else { throw Failure(arguments: ["group", "join"], result: joined) }
        let request = try Replica.open(at: store).joinRequest()
        guard let request, let reply = try Replica.open(at: organizer.store).admit(request).reply,
            let invitation = try Replica.open(at: store).pendingInvitation(),
            case .admitted(let answer)? = JoinReply(decoding: reply, invitation: invitation, device: request.device),
            try Replica.open(at: store).complete(answer)
        else { throw Failure(arguments: ["group", "join"], result: joined) }
        return token
    }
}
