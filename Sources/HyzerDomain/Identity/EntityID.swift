import Foundation

/// The id of one entity of the store: a player, a course, a round, a guest, a score event, a
/// group. Each entity has one id type, used by every command, query and document of the façade
/// (a device's is `DeviceID`). Its text (`description`) is what the store, the command line and
/// the JSON documents write, and it encodes and decodes as that text, so an app may cache it.
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

/// A registered player, by the UUID the store gave it when the player was created.
public struct PlayerID: EntityID {
    /// The player's id in the store.
    public let uuid: UUID

    /// The player with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: a UUID, in either case.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The id as lowercase UUID text, as the store, the command line and the JSON documents write it.
    public var description: String { uuid.lowercased }
}

/// A course, seeded or added, by its UUID.
public struct CourseID: EntityID {
    /// The course's id in the store.
    public let uuid: UUID

    /// The course with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: a UUID, in either case.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A round, by its UUID.
public struct RoundID: EntityID {
    /// The round's id in the store.
    public let uuid: UUID

    /// The round with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: a UUID, in either case.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A guest: someone who plays in one round without being a registered player. The UUID comes
/// from the guest's place in the round (docs/architecture.md, "Ids without randomness").
public struct GuestID: EntityID {
    /// The guest's id in the round, without the `guest:` prefix.
    public let uuid: UUID

    /// The guest with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The guest `text` names: `guest:` and a UUID.
    public init?(text: String) {
        guard text.hasPrefix(Participant.guestPrefix), let uuid = UUID(uuidString: String(text.dropFirst(Participant.guestPrefix.count)))
        else { return nil }
        self.init(uuid)
    }

    /// The participant id the store and the JSON documents use: `guest:` and the UUID.
    public var description: String { Participant.guestPrefix + uuid.lowercased }
}

/// One score event (a score, a correction or a resolution), by the UUID its op's hash gave it.
public struct ScoreEventID: EntityID {
    /// The event's id in the store.
    public let uuid: UUID

    /// The event with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: a UUID, in either case.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A group of devices that sync with each other, by its UUID.
public struct GroupID: EntityID {
    /// The group's id.
    public let uuid: UUID

    /// The group with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id `text` writes: a UUID, in either case.
    public init?(text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        self.init(uuid)
    }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}
