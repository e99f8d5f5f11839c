/// The id of someone playing a round: a registered player's UUID in lowercase, or
/// `guest:<uuid>` for a guest who exists only inside one round.
public typealias ParticipantID = String

/// One entry of a round's fixed participant list.
public struct Participant: Hashable, Sendable {
    /// The participant's id: a player's lowercase UUID or `guest:<uuid>`.
    public let id: ParticipantID
    /// The name shown in views: a registered player's current display name, or the guest's name.
    public var name: String

    /// A participant with the name views show.
    public init(id: ParticipantID, name: String) {
        self.id = id
        self.name = name
    }

    /// Whether this participant is a guest rather than a registered player.
    public var isGuest: Bool { id.hasPrefix(Self.guestPrefix) }

    /// The prefix of every guest id.
    public static let guestPrefix = "guest:"
}
