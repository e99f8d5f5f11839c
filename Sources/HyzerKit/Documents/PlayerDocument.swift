import HyzerDomain

/// A registered player as `player list --json` and the web's `/api/players` print it.
public struct PlayerDocument: Encodable, Sendable {
    /// The player's id, lowercase.
    public let id: String
    /// The player's current name.
    public let name: String
    /// Other names `card` accepts (`player alias`), sorted by their bytes.
    public let aliases: [String]

    /// The document of `player`, with its aliases sorted.
    public init(_ player: Player, aliases: [String]) {
        id = player.id.lowercased
        name = player.displayName
        self.aliases = aliases
    }
}
