import Foundation
import HyzerDomain

/// A registered player, by the UUID the store gave it when the player was created.
public struct PlayerID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The player's id in the store.
    public let uuid: UUID

    /// The player with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id as lowercase UUID text, as the store, the command line and the JSON documents write it.
    public var description: String { uuid.lowercased }
}

/// A course, seeded or added, by its UUID.
public struct CourseID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The course's id in the store.
    public let uuid: UUID

    /// The course with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A round, by its UUID.
public struct RoundID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The round's id in the store.
    public let uuid: UUID

    /// The round with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A guest: someone who plays in one round without being a registered player. The UUID comes
/// from the guest's place in the round (docs/architecture.md, "Ids without randomness").
public struct GuestID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The guest's id in the round, without the `guest:` prefix.
    public let uuid: UUID

    /// The guest with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The participant id the store and the JSON documents use: `guest:` and the UUID.
    public var description: String { Participant.guestPrefix + uuid.lowercased }
}

/// One score event (a score, a correction or a resolution), by the UUID its op's hash gave it.
public struct ScoreEventID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The event's id in the store.
    public let uuid: UUID

    /// The event with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// A group of devices that sync with each other, by its UUID.
public struct GroupID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The group's id.
    public let uuid: UUID

    /// The group with id `uuid`.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id as lowercase UUID text.
    public var description: String { uuid.lowercased }
}

/// Someone playing a round: a registered player or one of the round's guests.
public enum RoundParticipantID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A registered player in the round.
    case player(PlayerID)
    /// A guest of the round.
    case guest(GuestID)

    /// The participant id as the store and `StandingsEntry.playerID` write it.
    public var description: String {
        switch self {
        case .player(let id): id.description
        case .guest(let id): id.description
        }
    }

    /// The participant that a store's participant id names; `nil` for text that is neither a
    /// UUID nor `guest:` and a UUID.
    public init?(_ text: String) {
        if text.hasPrefix(Participant.guestPrefix) {
            guard let uuid = UUID(uuidString: String(text.dropFirst(Participant.guestPrefix.count))) else { return nil }
            self = .guest(GuestID(uuid))
        } else {
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = .player(PlayerID(uuid))
        }
    }
}
