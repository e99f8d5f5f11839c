import HyzerDomain

/// A registered player as `player list --json` and the web's `/api/players` print it.
public struct PlayerDocument: Codable, Hashable, Sendable {
    /// The player's id (its JSON: the lowercase UUID).
    public let id: PlayerID
    /// The player's current name.
    public let name: String
    /// Other names `card` accepts (`player alias`), sorted by their bytes.
    public let aliases: [String]

    /// The document of `player`, with its aliases sorted.
    public init(_ player: Player, aliases: [String]) {
        id = PlayerID(player.id)
        name = player.displayName
        self.aliases = aliases
    }
}
