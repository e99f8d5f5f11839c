import Foundation

/// A registered player. `displayName` is a last-writer-wins register.
public struct Player: Hashable, Sendable {
    /// The player's id, derived from its creating op's hash.
    public let id: UUID
    /// The player's current name.
    public var displayName: String
    /// When the player was created, by the creating replica's clock.
    public let createdAt: HLCTimestamp
    /// The replica that created the player, which owns it (docs/rules.md, Device).
    public let createdBy: AuthorID

    /// A player from its registers' current values.
    public init(id: UUID, displayName: String, createdAt: HLCTimestamp, createdBy: AuthorID) {
        self.id = id
        self.displayName = displayName
        self.createdAt = createdAt
        self.createdBy = createdBy
    }
}
