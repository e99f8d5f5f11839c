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

/// Changing who is in the group (the organizer only) and which devices own which players.
extension HyzerEngine {
    /// Removes `device` from the group and rekeys it with a fresh secret sealed to every
    /// remaining member: none of the device's later ops counts anywhere (docs/security.md,
    /// "Membership"). Removing a device removed before changes nothing and returns the same
    /// removal. Throws `ReplicaError.unknown` when the group has no such device, `GroupError`
    /// when this device is not the organizer or names itself. (`device(matching:)` finds a
    /// device by what a person typed, as `hyzer-peer group remove` takes it.)
    public func removeMember(_ device: DeviceID) async throws -> MemberRemoval {
        try await perform(.write) { replica in
            let removal = try replica.removeMember(device.hex, newSecret: SecureRandom.bytes(GroupMembership.secretBytes))
            return MemberRemoval(device: removal.device, through: removal.through, epoch: removal.epoch)
        }
    }

    /// Replaces the group secret with a fresh one (the organizer only), sealed to every member
    /// not removed; returns the new epoch and how many devices it was sealed to.
    public func rekeyGroup() async throws -> (epoch: UInt32, recipients: Int) {
        try await perform(.write) { try $0.rekeyGroup(newSecret: SecureRandom.bytes(GroupMembership.secretBytes)) }
    }

    /// The devices this replica knows, in the store's order.
    public func devices() async throws -> [Device] {
        try await perform(.read) { try $0.devices() }
    }

    /// Which devices own which players.
    public func ownership() async throws -> Ownership {
        try await perform(.read) { try $0.ownership() }
    }

    /// Makes `device` an owner of `owner`, as `hyzer-peer device link` does: this device must own
    /// `owner`. A device is named by its full id even before its record has arrived (a new
    /// watch is paired by the id its `whoami` shows).
    public func linkDevice(_ device: DeviceID, owner: PlayerID) async throws {
        try await perform(.write) { replica in
            try Self.requirePlayers([owner], replica)
            try replica.linkDevice(device.hex, owner: owner.description)
        }
    }
}

/// A device removed from the group (`HyzerEngine.removeMember(_:)`).
public struct MemberRemoval: Equatable, Sendable, Codable {
    /// The device removed.
    public let device: DeviceID
    /// Its last op that still counts: every op after it is ignored everywhere.
    public let through: UInt64
    /// The group key's epoch after the removal's rekey.
    public let epoch: UInt32
}
