/// One entry of a round's fixed participant list.
public struct Participant: Hashable, Sendable {
    /// The participant's id: a registered player's or a guest's.
    public let id: ParticipantID
    /// The name shown in views: a registered player's current display name, or the guest's name.
    public var name: String

    /// A participant with the name views show.
    public init(id: ParticipantID, name: String) {
        self.id = id
        self.name = name
    }

    /// Whether this participant is a guest rather than a registered player.
    public var isGuest: Bool { id.isGuest }

    /// The prefix of every guest id.
    public static let guestPrefix = "guest:"
}
