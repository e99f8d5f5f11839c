import Foundation

/// Two registered players against each other over the completed rounds where both have a full
/// card (docs/domain.md, "Stats"). The fewer strokes wins. Field names are the
/// `stats head-to-head --json` contract.
public struct HeadToHead: Codable, Hashable, Sendable {
    /// A player, by id and current name.
    public struct Side: Codable, Hashable, Sendable {
        /// The player (its JSON: the lowercase UUID).
        public let playerID: PlayerID
        /// The player's current name.
        public let name: String
    }

    /// How a shared round went for the player (its JSON: `win`, `loss` or `tie`).
    public enum Outcome: String, Codable, Hashable, Sendable {
        /// The player took fewer strokes.
        case win
        /// The player took more strokes.
        case loss
        /// Equal strokes.
        case tie
    }

    /// One shared round.
    public struct Meeting: Codable, Hashable, Sendable {
        /// The round (its JSON: the lowercase UUID).
        public let round: RoundID
        /// The course's name when the round started.
        public let course: String
        /// The round's start, in milliseconds since the Unix epoch.
        public let startedAt: UInt64
        /// The player's total strokes in the round.
        public let playerStrokes: Int
        /// The opponent's total strokes in the round.
        public let opponentStrokes: Int
        /// How the round went for the player.
        public let result: Outcome

        init(player: PlayedCard, opponent: PlayedCard) {
            round = RoundID(player.round.id)
            course = player.round.courseName
            startedAt = player.startedAt
            playerStrokes = player.totalStrokes
            opponentStrokes = opponent.totalStrokes
            result = playerStrokes < opponentStrokes ? .win : playerStrokes > opponentStrokes ? .loss : .tie
        }
    }

    /// The player the record is for.
    public let player: Side
    /// The player they are compared with.
    public let opponent: Side
    /// Completed rounds where both have a full card.
    public let sharedRounds: Int
    /// Shared rounds where the player took fewer strokes.
    public let wins: Int
    /// Shared rounds where the player took more strokes.
    public let losses: Int
    /// Shared rounds with equal strokes.
    public let ties: Int
    /// Mean of (player's strokes − opponent's strokes), two decimals; negative when the player
    /// usually takes fewer. `null` with no shared round.
    public let averageStrokeDifference: Double?
    /// The last five shared rounds, newest first.
    public let lastMeetings: [Meeting]

    /// The meetings of `player` and `opponent` in `rounds` (any order).
    public init(player: Player, opponent: Player, rounds: [RoundEvaluation]) {
        self.init(player: player, opponent: opponent, played: rounds.compactMap(PlayedRound.init))
    }

    /// The meetings of `player` and `opponent` in `played` (any order).
    public init(player: Player, opponent: Player, played: [PlayedRound]) {
        let playerID = ParticipantID(player: player.id)
        let opponentID = ParticipantID(player: opponent.id)
        let cards = PlayedCard.all(played, of: [playerID, opponentID])
        var opponentCards: [UUID: PlayedCard] = [:]
        for card in cards where card.playerID == opponentID { opponentCards[card.round.id] = card }
        // Counted from the cards; only the last five become meetings (their text costs).
        var shared: [(player: PlayedCard, opponent: PlayedCard)] = []
        for card in cards where card.playerID == playerID {
            if let other = opponentCards[card.round.id] { shared.append((card, other)) }
        }
        let differences = shared.map { $0.player.totalStrokes - $0.opponent.totalStrokes }
        self.player = Side(playerID: PlayerID(player.id), name: player.displayName)
        self.opponent = Side(playerID: PlayerID(opponent.id), name: opponent.displayName)
        sharedRounds = shared.count
        wins = differences.filter { $0 < 0 }.count
        losses = differences.filter { $0 > 0 }.count
        ties = differences.filter { $0 == 0 }.count
        averageStrokeDifference = StatsAverage.of(differences.reduce(0, +), over: shared.count)
        lastMeetings = shared.suffix(5).reversed().map { Meeting(player: $0.player, opponent: $0.opponent) }
    }

    /// Encodes every field, `null` included, as `stats head-to-head --json` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(player, forKey: .player)
        try container.encode(opponent, forKey: .opponent)
        try container.encode(sharedRounds, forKey: .sharedRounds)
        try container.encode(wins, forKey: .wins)
        try container.encode(losses, forKey: .losses)
        try container.encode(ties, forKey: .ties)
        try container.encode(averageStrokeDifference, forKey: .averageStrokeDifference)
        try container.encode(lastMeetings, forKey: .lastMeetings)
    }

    private enum CodingKeys: String, CodingKey {
        case player, opponent, sharedRounds, wins, losses, ties, averageStrokeDifference, lastMeetings
    }
}
