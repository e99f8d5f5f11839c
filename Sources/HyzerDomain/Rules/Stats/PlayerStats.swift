import Foundation

/// One registered player's record over every completed round (docs/domain.md, "Stats"): a pure
/// function of the rounds, whatever their order. Field names are the `stats player --json`
/// contract.
public struct PlayerStats: Codable, Hashable, Sendable {
    /// One round of the player's, as the trend and the bests list it.
    public struct RoundResult: Codable, Hashable, Sendable {
        /// The round (its JSON: the lowercase UUID).
        public let round: RoundID
        /// The course's name when the round started.
        public let course: String
        /// The course (its JSON: the lowercase UUID).
        public let courseID: CourseID
        /// The round's start, in milliseconds since the Unix epoch.
        public let startedAt: UInt64
        /// The player's total strokes.
        public let totalStrokes: Int
        /// Total strokes minus the round's total par.
        public let relativeToPar: Int
        /// `relativeToPar` as scores are shown: `E`, `+2`, `-1`.
        public let formatted: String

        init(_ card: PlayedCard) {
            round = RoundID(card.round.id)
            course = card.round.courseName
            courseID = CourseID(card.round.courseID)
            startedAt = card.startedAt
            totalStrokes = card.totalStrokes
            relativeToPar = card.relativeToPar
            formatted = ScoreFormatting.formatted(card.relativeToPar)
        }
    }

    /// The player (its JSON: the lowercase UUID).
    public let playerID: PlayerID
    /// The player's current name.
    public let name: String
    /// Completed rounds with a full card.
    public let roundsPlayed: Int
    /// Mean of `relativeToPar` over those rounds, two decimals; `null` with no round.
    public let averageRelativeToPar: Double?
    /// The lowest round relative to par; the earliest wins a tie. `null` with no round.
    public let best: RoundResult?
    /// The best round on each course (lowest relative to par, the earliest on a tie), by course
    /// name bytes, then course id.
    public let personalBests: [RoundResult]
    /// Every round, oldest first: the points of the trend.
    public let trend: [RoundResult]

    /// The stats of `player` from `rounds` (any order; only completed rounds with the player's
    /// full card count).
    public init(player: Player, rounds: [RoundEvaluation]) {
        self.init(player: player, played: rounds.compactMap(PlayedRound.init))
    }

    /// The stats of `player` from `played` (any order; only the player's full cards count).
    public init(player: Player, played: [PlayedRound]) {
        playerID = PlayerID(player.id)
        let cards = PlayedCard.all(played, of: [ParticipantID(playerID)])
        let trend = cards.map(RoundResult.init)
        name = player.displayName
        roundsPlayed = trend.count
        averageRelativeToPar = StatsAverage.of(trend.reduce(0) { $0 + $1.relativeToPar }, over: trend.count)
        best = Self.best(trend)
        var byCourse: [CourseID: [RoundResult]] = [:]
        for result in trend { byCourse[result.courseID, default: []].append(result) }
        personalBests = byCourse.values.compactMap(Self.best).sorted { lhs, rhs in
            lhs.course != rhs.course
                ? CanonicalOrder.precedes(lhs.course, rhs.course) : CanonicalOrder.precedes(lhs.courseID.uuid, rhs.courseID.uuid)
        }
        self.trend = trend
    }

    /// The lowest relative to par of `results` (oldest first): `min` keeps the first of equals.
    private static func best(_ results: [RoundResult]) -> RoundResult? {
        results.min { $0.relativeToPar < $1.relativeToPar }
    }

    /// Encodes every field, `null` included, as `stats player --json` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playerID, forKey: .playerID)
        try container.encode(name, forKey: .name)
        try container.encode(roundsPlayed, forKey: .roundsPlayed)
        try container.encode(averageRelativeToPar, forKey: .averageRelativeToPar)
        try container.encode(best, forKey: .best)
        try container.encode(personalBests, forKey: .personalBests)
        try container.encode(trend, forKey: .trend)
    }

    private enum CodingKeys: String, CodingKey {
        case playerID, name, roundsPlayed, averageRelativeToPar, best, personalBests, trend
    }
}
