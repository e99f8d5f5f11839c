import Foundation
internal import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The group this device syncs with (docs/security.md, "Membership"): creating one, inviting
/// devices, accepting an invitation and listing the members.
extension HyzerEngine {
    /// Creates a group with a new secret, this device its organizer, as `hyzer-peer group
    /// create` does. Throws when this device already belongs to a group.
    @discardableResult
    public func createGroup() async throws -> GroupID {
        try await perform(.write) { replica in
            if try replica.group() != nil { throw EngineError.alreadyInGroup }
            let group = GroupMembership.new(organizer: replica.author)
            try replica.join(group)
            return GroupID(group.id)
        }
    }

    /// The group this device belongs to, if any.
    public func group() async throws -> GroupID? {
        try await perform(.read) { try $0.group().map { GroupID($0.id) } }
    }

    /// Issues an invitation that admits at most `uses` devices (1 to 100) until `expires` from
    /// now (longer than zero, at most a year), and returns its token, as `hyzer-peer group
    /// invite` prints it. The engine draws the invitation's secret from the system's secure
    /// random source. The token holds no group secret, but whoever holds it may join while it
    /// lasts: hand it over privately.
    public func invite(uses: Int = 1, expires: Duration = .seconds(7 * 86_400)) async throws -> String {
        guard expires > .zero, expires <= .seconds(366 * 86_400) else { throw EngineError.invitationLifetimeOutOfRange }
        let (seconds, attoseconds) = expires.components
        // At most a year: 3.2e10 ms, far from overflowing.
        let milliseconds = UInt64(seconds) * 1_000 + UInt64(attoseconds / 1_000_000_000_000_000)
        return try await perform(.write) { replica in
            let (expiresAt, overflow) = replica.wallClockMilliseconds().addingReportingOverflow(milliseconds)
            guard !overflow else { throw EngineError.invitationLifetimeOutOfRange }
            return try replica.issueInvitation(secret: SecureRandom.bytes(Invitation.secretBytes), expiresAt: expiresAt, uses: uses).token
        }
    }

    /// Accepts an invitation `token` made by a member's `invite`: this device keeps it and is
    /// admitted by the first member it syncs with (docs/security.md, "Invitations"). Returns
    /// the group it is to join.
    @discardableResult
    public func acceptInvitation(token: String) async throws -> GroupID {
        let invitation = try Invitation(token: token)
        return try await perform(.write) { replica in
            try replica.accept(invitation)
            return GroupID(invitation.groupID)
        }
    }

    /// The group's devices, as `hyzer-peer group members` lists them: name, kind, the players
    /// each owns, the last op this replica holds of it, and whether it was removed.
    public func members() async throws -> [GroupMember] {
        try await perform(.read) { try $0.groupMembers() }
    }
}
