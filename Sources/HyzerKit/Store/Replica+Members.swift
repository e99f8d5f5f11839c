import Foundation
import GRDB
import HyzerDomain

/// One member of the group as `group members` lists it.
public struct GroupMember: Identifiable, Hashable, Sendable, Codable {
    /// The device's key.
    public let id: AuthorID
    /// From the device's own record, once one of its ops arrived.
    public let name: String?
    /// The device's kind, from its own record; `nil` until one of its ops arrived.
    public let kind: DeviceKind?
    /// The players the device owns (display names), from the ownership views.
    public let owns: [String]
    /// The last op of the device this replica holds (0: none yet, an admitted device that has
    /// not synced), and its clock in ms since 1970.
    public let lastSequence: UInt64
    /// The clock of the device's last held op, in milliseconds since the Unix epoch; `nil` when none is held.
    public let lastMilliseconds: UInt64?
    /// The organizer removed the device or a key of its lineage: no rekey is sealed to it.
    public let removed: Bool
    /// Whether the device is the group's organizer (the one that created the group).
    public let isOrganizer: Bool
}

extension Replica {
    /// The members of the group (docs/security.md, "Membership"): those not removed are exactly
    /// the devices the next rekey is sealed to. In a group whose organizer is not known, every
    /// device heard from. Ordered by id.
    public func groupMembers() throws -> [GroupMember] {
        try read { db in
            guard let group = try membership(db) else {
                throw GroupError.noGroup(.members)
            }
            let reader = ViewReader(db: db)
            let heard = Set(try AuthorID.fetchAll(db.cachedStatement(sql: "SELECT key FROM authors WHERE headSequence > 0")))
            let members = try Membership.members(db) ?? heard
            let ownership = try reader.ownership()
            let players = try reader.players()
            return try members.sorted().map { device in
                let author = try AuthorRow.find(device, in: db)
                let lastSequence = author?.headSequence ?? 0
                let tail = try author.flatMap { try $0.tail(of: $0.headSequence, in: db) }
                return GroupMember(
                    id: device, name: try reader.register(Data(device.bytes), "device.name").map { String(decoding: $0, as: UTF8.self) },
                    kind: try reader.deviceKind(device),
                    owns: players.filter { ownership.device(device, owns: ParticipantID(player: $0.id)) }.map(\.displayName),
                    lastSequence: lastSequence, lastMilliseconds: tail.flatMap { OpTail($0).clock }?.physicalMilliseconds,
                    removed: group.removed.contains(device), isOrganizer: GroupMembership.isOrganizer(device, of: group.id))
            }
        }
    }
}
