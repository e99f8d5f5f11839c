import HyzerDomain

/// A registered player's completed rounds, newest first, as the web's `/api/players/P` prints it:
/// the player's line of each round's final standings.
public struct PlayerHistoryDocument: Encodable, Equatable, Sendable {
    public struct Entry: Encodable, Equatable, Sendable {
        public let round: String
        public let course: String
        public let finishedAt: UInt64
        public let position: Int
        public let holesPlayed: Int
        public let totalStrokes: Int
        public let relativeToPar: Int
        public let formatted: String
    }

    public let id: String
    public let name: String
    public let rounds: [Entry]

    public init(_ player: Player, history: [HistoryEntry]) {
        id = player.id.lowercased
        name = player.displayName
        rounds = history.compactMap { entry in
            guard let line = entry.standings?.first(where: { $0.playerID == player.id.lowercased }), line.holesPlayed > 0 else {
                return nil
            }
            return Entry(
                round: entry.round, course: entry.course, finishedAt: entry.finishedAt, position: line.position,
                holesPlayed: line.holesPlayed,
                totalStrokes: line.totalStrokes, relativeToPar: line.relativeToPar, formatted: line.formatted)
        }
    }
}
