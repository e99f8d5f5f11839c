import Foundation
import HyzerDomain

/// What a replica refuses about its group (docs/security.md, "Membership"): joining a second
/// one, a command that needs a group it does not have, the organizer's removals and rekeys.
public enum GroupError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// What a replica that belongs to no group was asked to do.
    public enum Need: Equatable, Sendable {
        /// Sync (through a folder or with a peer).
        case sync
        /// List the group's members.
        case members
        /// Remove a member or rekey the group.
        case removeOrRekey
        /// Invite a device.
        case invite
    }

    /// The replica belongs to `current`, another group than the one it was asked to join.
    case alreadyInGroup(current: UUID)
    /// The replica already is a member of the group whose invitation it was given.
    case alreadyMember(group: UUID)
    /// The replica accepted an invitation to `group`, but no member has admitted it yet.
    case awaitingAdmission(group: UUID)
    /// The replica belongs to no group, and `need` needs one.
    case noGroup(Need)
    /// The organizer was asked to remove its own device.
    case organizerCannotRemoveItself
    /// The group's epoch reached its largest value: it cannot be rekeyed again.
    case rekeysExhausted
    /// The group has more devices than a rekey seals its secret to.
    case tooManyDevicesToRekey(limit: Int)

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .alreadyInGroup(let current):
            "this replica already belongs to group \(current.lowercased); use a new store for another group"
        case .alreadyMember(let group):
            "this replica is already a member of group \(group.lowercased)"
        case .awaitingAdmission(let group):
            "this device accepted an invitation to group \(group.lowercased), but no member has admitted it yet; sync with a member first"
        case .noGroup(.sync):
            "this replica belongs to no group, and sync needs one; create a group, or join one with a member's invite token"
        case .noGroup(.members):
            "this replica belongs to no group; create a group, or join one with a member's invite token"
        case .noGroup(.removeOrRekey):
            "this replica belongs to no group, so it has no members to remove or rekey"
        case .noGroup(.invite):
            "this replica belongs to no group, so it has nobody to invite; create a group first"
        case .organizerCannotRemoveItself:
            "the organizer cannot remove itself; to end the group, stop syncing and create a new one"
        case .rekeysExhausted:
            "the group was rekeyed as often as it can be; create a new one"
        case .tooManyDevicesToRekey(let limit):
            "the group has more than \(limit) devices, more than a rekey seals to; create a new group"
        }
    }
}
