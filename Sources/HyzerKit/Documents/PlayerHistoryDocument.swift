import HyzerDomain

/// A registered player's completed rounds, newest first, as the web's `/api/players/P` prints it:
/// the player's line of each round's final standings.
public struct PlayerHistoryDocument: Codable, Hashable, Sendable {
    /// The player's line in one completed round's final standings.
    public struct Entry: Codable, Hashable, Sendable {
        /// The round (its JSON: the lowercase UUID).
        public let round: RoundID
        /// The course's name when the round started.
        public let course: String
        /// The finish's clock reading, in milliseconds since the Unix epoch.
        public let finishedAt: UInt64
        /// The player's place in the final standings, from 1: equal scores share a place, and the next one skips.
        public let position: Int
        /// Holes the player has a score on, disputed ones included.
        public let holesPlayed: Int
        /// The player's strokes over those holes.
        public let totalStrokes: Int
        /// Σ(strokes − par) over the holes played.
        public let relativeToPar: Int
        /// `relativeToPar` as scores are shown: `E`, `+2`, `-1`.
        public let formatted: String
    }

    /// The player's id (its JSON: the lowercase UUID).
    public let id: PlayerID
    /// The player's current name.
    public let name: String
    /// The player's completed rounds with at least one hole played, newest first.
    public let rounds: [Entry]

    /// The document of `player` from the replica's `history` (newest first, with standings).
    public init(_ player: Player, history: [HistoryEntry]) {
        id = PlayerID(player.id)
        name = player.displayName
        rounds = history.compactMap { entry in
            guard let line = entry.standings?.first(where: { $0.playerID == ParticipantID(player: player.id) }), line.holesPlayed > 0 else {
                return nil
            }
            return Entry(
                round: entry.round, course: entry.course, finishedAt: entry.finishedAt, position: line.position,
                holesPlayed: line.holesPlayed,
                totalStrokes: line.totalStrokes, relativeToPar: line.relativeToPar, formatted: line.formatted)
        }
    }
}
