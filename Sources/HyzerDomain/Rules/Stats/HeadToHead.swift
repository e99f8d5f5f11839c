import Foundation

/// Two registered players against each other over the completed rounds where both have a full
/// card (docs/domain.md, "Stats"). The fewer strokes wins. Field names are the
/// `stats head-to-head --json` contract.
public struct HeadToHead: Encodable, Hashable, Sendable {
    /// A player, by id and current name.
    public struct Side: Encodable, Hashable, Sendable {
        public let playerID: String
        public let name: String
    }

    /// One shared round.
    public struct Meeting: Encodable, Hashable, Sendable {
        public let round: String
        public let course: String
        /// The round's start, in milliseconds since the Unix epoch.
        public let startedAt: UInt64
        public let playerStrokes: Int
        public let opponentStrokes: Int
        /// `win`, `loss` or `tie`, for the player.
        public let result: String
    }

    public let player: Side
    public let opponent: Side
    public let sharedRounds: Int
    public let wins: Int
    public let losses: Int
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
        let playerID = player.id.lowercased
        let opponentID = opponent.id.lowercased
        let cards = PlayedCard.all(played, of: [playerID, opponentID])
        var opponentCards: [UUID: PlayedCard] = [:]
        for card in cards where card.playerID == opponentID { opponentCards[card.round.id] = card }
        var meetings: [Meeting] = []
        var difference = 0
        for card in cards where card.playerID == playerID {
            guard let other = opponentCards[card.round.id] else { continue }
            difference += card.totalStrokes - other.totalStrokes
            let result = card.totalStrokes < other.totalStrokes ? "win" : card.totalStrokes > other.totalStrokes ? "loss" : "tie"
            meetings.append(
                Meeting(
                    round: card.round.id.lowercased, course: card.round.courseName, startedAt: card.startedAt,
                    playerStrokes: card.totalStrokes, opponentStrokes: other.totalStrokes, result: result))
        }
        self.player = Side(playerID: playerID, name: player.displayName)
        self.opponent = Side(playerID: opponentID, name: opponent.displayName)
        sharedRounds = meetings.count
        wins = meetings.filter { $0.result == "win" }.count
        losses = meetings.filter { $0.result == "loss" }.count
        ties = meetings.filter { $0.result == "tie" }.count
        averageStrokeDifference = StatsAverage.of(difference, over: meetings.count)
        lastMeetings = Array(meetings.suffix(5).reversed())
    }

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
