import Foundation

/// The id of one entity of the store: a player, a course, a round, a guest, a round's
/// participant, a score event, a group. Each entity has one id type, used by every command, query
/// and document of the façade (a device's is `DeviceID`). Its text (`description`) is what the
/// store, the command line and the JSON documents write, and it encodes and decodes as that text,
/// so an app may cache it.
public protocol EntityID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The id that `text` writes; `nil` for text that is not one.
    init?(text: String)
}

extension EntityID {
    /// Decodes the id from its text; refuses text that is not one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = Self(text: text) else {
            throw Swift.DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a \(Self.self)")
        }
        self = id
    }

    /// Encodes the id as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A device of the group, by its Ed25519 public key: the id every op it signs names it by. The
/// façade's other ids wrap a UUID; a device's key is its id already (`AuthorID`, which encodes as
/// its 64 hexadecimal digits).
public typealias DeviceID = AuthorID

/// What an id around a UUID names (``UUIDEntityID``'s `Entity`): one of the ``EntityKind``s.
public protocol UUIDEntity: Sendable {
    /// What the id's text has before the UUID: `guest:` for a guest, nothing for the others.
    static var prefix: String { get }
}

extension UUIDEntity {
    /// No prefix: the text is the UUID alone.
    public static var prefix: String { "" }
}

/// An entity's id around its UUID, the entity told by `Entity` (so a player's id is not a
/// course's): ``PlayerID``, ``CourseID``, ``RoundID``, ``GuestID``, ``ScoreEventID``, ``GroupID``.
public struct UUIDEntityID<Entity: UUIDEntity>: EntityID {
    /// The entity's UUID.
    public let uuid: UUID

    /// The entity with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: the entity's prefix, then a UUID in either case.
    public init?(text: String) {
        guard text.hasPrefix(Entity.prefix), let uuid = UUID(uuidString: String(text.dropFirst(Entity.prefix.count))) else {
            return nil
        }
        self.init(uuid)
    }

    /// The id as the store, the command line and the JSON documents write it: the prefix, then
    /// the lowercase UUID.
    public var description: String { Entity.prefix + uuid.lowercased }
}

/// The entities whose ids wrap a UUID.
public enum EntityKind {
    /// A registered player.
    public enum Player: UUIDEntity {}
    /// A course.
    public enum Course: UUIDEntity {}
    /// A round.
    public enum Round: UUIDEntity {}
    /// A guest of a round.
    public enum Guest: UUIDEntity {
        /// `guest:`, as in every guest's participant id.
        public static var prefix: String { Participant.guestPrefix }
    }
    /// A score event.
    public enum ScoreEvent: UUIDEntity {}
    /// A group of devices.
    public enum Group: UUIDEntity {}
}

/// A registered player, by the UUID the store gave it when the player was created.
public typealias PlayerID = UUIDEntityID<EntityKind.Player>

/// A course, seeded or added, by its UUID.
public typealias CourseID = UUIDEntityID<EntityKind.Course>

/// A round, by its UUID.
public typealias RoundID = UUIDEntityID<EntityKind.Round>

/// A guest: someone who plays in one round without being a registered player. The UUID comes
/// from the guest's place in the round (docs/architecture.md, "Ids without randomness"); the
/// text is `guest:` and the UUID, the guest's participant id.
public typealias GuestID = UUIDEntityID<EntityKind.Guest>

/// One score event (a score, a correction or a resolution), by the UUID its op's hash gave it.
public typealias ScoreEventID = UUIDEntityID<EntityKind.ScoreEvent>

/// A group of devices that sync with each other, by its UUID.
public typealias GroupID = UUIDEntityID<EntityKind.Group>
