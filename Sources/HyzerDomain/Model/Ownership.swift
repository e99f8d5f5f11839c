import Foundation

/// Which devices own which players, as proven by signed ops: a device owns each player it
/// created, and any device that an owner linked to the player.
public struct Ownership: Hashable, Sendable {
    /// Owning devices of each player, keyed by the player's participant id.
    public var owners: [ParticipantID: Set<AuthorID>]

    /// Ownership as given: no closure over links is computed.
    public init(owners: [ParticipantID: Set<AuthorID>] = [:]) {
        self.owners = owners
    }

    /// Whether `device` owns `player`.
    public func device(_ device: AuthorID, owns player: ParticipantID) -> Bool {
        owners[player]?.contains(device) ?? false
    }
}
