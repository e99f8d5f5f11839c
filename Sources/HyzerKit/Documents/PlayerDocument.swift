import HyzerDomain

/// A registered player as `player list --json` and the web's `/api/players` print it.
public struct PlayerDocument: Encodable, Sendable {
    public let id: String
    public let name: String

    public init(_ player: Player) {
        id = player.id.lowercased
        name = player.displayName
    }
}
