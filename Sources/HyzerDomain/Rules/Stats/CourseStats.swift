import Foundation

/// How a course plays over every completed round on it (docs/domain.md, "Stats"): each hole's
/// average against par from every full card, and the hardest and easiest holes. Field names are
/// the `stats course --json` contract.
public struct CourseStats: Codable, Hashable, Sendable {
    /// One hole over every card that played it.
    public struct Hole: Codable, Hashable, Sendable {
        /// The hole number, 1-based.
        public let hole: Int
        /// The course's par now (a round that started under another par is measured against the
        /// par it recorded).
        public let par: Int
        /// Cards that played this hole.
        public let cards: Int
        /// Mean strokes, two decimals; `null` when no card played it.
        public let averageStrokes: Double?
        /// Mean of (strokes − the round's par for the hole), two decimals; `null` when no card.
        public let averageRelativeToPar: Double?

        /// Encodes every field, `null` included, as `stats course --json` prints it.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(hole, forKey: .hole)
            try container.encode(par, forKey: .par)
            try container.encode(cards, forKey: .cards)
            try container.encode(averageStrokes, forKey: .averageStrokes)
            try container.encode(averageRelativeToPar, forKey: .averageRelativeToPar)
        }

        private enum CodingKeys: String, CodingKey { case hole, par, cards, averageStrokes, averageRelativeToPar }
    }

    /// The course (its JSON: the lowercase UUID).
    public let courseID: CourseID
    /// The course's current name.
    public let course: String
    /// Completed rounds on the course.
    public let roundsPlayed: Int
    /// Full cards in those rounds.
    public let cards: Int
    /// Every hole of the course now, in order.
    public let holes: [Hole]
    /// The hole with the highest average against par (the lower number on a tie); `null` when
    /// no card was played.
    public let hardest: Hole?
    /// The hole with the lowest average against par (the lower number on a tie).
    public let easiest: Hole?

    /// The stats of `course` from `rounds` (any order; rounds on other courses are skipped).
    public init(course: Course, rounds: [RoundEvaluation]) {
        self.init(course: course, played: rounds.compactMap(PlayedRound.init))
    }

    /// The stats of `course` from `played` (any order; rounds on other courses are skipped).
    public init(course: Course, played: [PlayedRound]) {
        var strokes = Array(repeating: 0, count: course.holeCount)
        var relative = Array(repeating: 0, count: course.holeCount)
        var counts = Array(repeating: 0, count: course.holeCount)
        var (roundsPlayed, cardCount) = (0, 0)
        // Every full card on the course, read in place: a round listed twice counts once.
        for position in PlayedCard.playedOrder(played) where played[position].courseID == course.id {
            let round = played[position]
            if !round.cards.isEmpty { roundsPlayed += 1 }
            cardCount += round.cards.count
            for card in round.cards {
                // Holes the course no longer has (it was shortened after the round) are left out.
                for (index, value) in card.strokes.enumerated() where index < course.holeCount {
                    strokes[index] += value
                    relative[index] += value - round.pars[index]
                    counts[index] += 1
                }
            }
        }
        let holes = course.pars.indices.map { index in
            Hole(
                hole: index + 1, par: course.pars[index], cards: counts[index],
                averageStrokes: StatsAverage.of(strokes[index], over: counts[index]),
                averageRelativeToPar: StatsAverage.of(relative[index], over: counts[index]))
        }
        let played = holes.filter { $0.cards > 0 }
        courseID = CourseID(course.id)
        self.course = course.name
        self.roundsPlayed = roundsPlayed
        cards = cardCount
        self.holes = holes
        // `max` keeps the last of equals and `min` the first: compare on (average, -hole) to keep the lower number.
        hardest = played.max { ($0.averageRelativeToPar!, -$0.hole) < ($1.averageRelativeToPar!, -$1.hole) }
        easiest = played.min { ($0.averageRelativeToPar!, $0.hole) < ($1.averageRelativeToPar!, $1.hole) }
    }

    /// Encodes every field, `null` included, as `stats course --json` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(courseID, forKey: .courseID)
        try container.encode(course, forKey: .course)
        try container.encode(roundsPlayed, forKey: .roundsPlayed)
        try container.encode(cards, forKey: .cards)
        try container.encode(holes, forKey: .holes)
        try container.encode(hardest, forKey: .hardest)
        try container.encode(easiest, forKey: .easiest)
    }

    private enum CodingKeys: String, CodingKey { case courseID, course, roundsPlayed, cards, holes, hardest, easiest }
}
