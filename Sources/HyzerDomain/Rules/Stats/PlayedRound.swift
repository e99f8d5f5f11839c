import Foundation

/// What every statistic reads of one completed round: the round as its start op fixed it and
/// each participant's full card (docs/domain.md, "Stats"). Small enough to keep per round in the
/// history cache, so stats cost a lookup per round instead of an evaluation.
public struct PlayedRound: Hashable, Sendable {
    /// One participant's card with a score on every hole.
    public struct Card: Hashable, Sendable {
        /// The participant whose card it is.
        public let playerID: ParticipantID
        /// The participant's name in the round.
        public let name: String
        /// Strokes in hole order, from `strokes.startIndex`: a slice, so that the cards of a round
        /// decoded from the history cache share one array.
        public let strokes: ArraySlice<Int>

        /// A full card.
        public init(playerID: ParticipantID, name: String, strokes: ArraySlice<Int>) {
            self.playerID = playerID
            self.name = name
            self.strokes = strokes
        }
    }

    /// The round's id.
    public let id: UUID
    /// The course the round was played on.
    public let courseID: UUID
    /// The course's name when the round started.
    public let courseName: String
    /// Par of hole `n` at index `n - 1`.
    public let pars: [Int]
    /// When the round started, by the starting replica's clock.
    public let startedAt: HLCTimestamp
    /// The full cards, in participant order.
    public let cards: [Card]

    /// A played round from its parts (the history cache decodes it so).
    public init(id: UUID, courseID: UUID, courseName: String, pars: [Int], startedAt: HLCTimestamp, cards: [Card]) {
        self.id = id
        self.courseID = courseID
        self.courseName = courseName
        self.pars = pars
        self.startedAt = startedAt
        self.cards = cards
    }

    /// The played round of `evaluation`; `nil` unless it is completed (has a valid finish).
    ///
    /// A card counts only when the participant has a score on every hole: a forced finish with
    /// holes missing would make a partial round look like a great one. A disputed hole counts
    /// its chosen leaf, as the standings do.
    public init?(_ evaluation: RoundEvaluation) {
        guard evaluation.finish != nil else { return nil }
        let round = evaluation.round
        var cards: [Card] = []
        for participant in evaluation.participants {
            let holes = (0..<round.holeCount).map { evaluation.score(player: participant.id, hole: $0 + 1).strokes }
            guard !holes.isEmpty, holes.allSatisfy({ $0 != nil }) else { continue }
            cards.append(Card(playerID: participant.id, name: participant.name, strokes: holes.compactMap { $0 }[...]))
        }
        self.init(
            id: round.id, courseID: round.courseID, courseName: round.courseName, pars: round.pars, startedAt: round.startedAt,
            cards: cards)
    }

    /// The sum of every hole's par.
    public var totalPar: Int { pars.reduce(0, +) }
}
