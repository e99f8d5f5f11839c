import Foundation

/// One participant's full card in one completed round, with the round: the unit every
/// statistic reads (docs/domain.md, "Stats").
public struct PlayedCard: Hashable, Sendable {
    /// The completed round.
    public let round: PlayedRound
    /// The participant whose card it is.
    public let playerID: ParticipantID
    /// The participant's name in the round.
    public let name: String
    /// Strokes in hole order, from `strokes.startIndex`.
    public let strokes: ArraySlice<Int>

    /// The card's total strokes.
    public var totalStrokes: Int { strokes.reduce(0, +) }
    /// Total strokes minus the round's total par (negative under par).
    public var relativeToPar: Int { totalStrokes - round.totalPar }
    /// When the round started, in milliseconds since the Unix epoch (its start op's clock).
    public var startedAt: UInt64 { round.startedAt.physicalMilliseconds }

    /// Every full card of `rounds` (only those of `players` when given), oldest round first: by
    /// the start's clock, then round id bytes; within a round, in participant order. The order
    /// of `rounds` does not matter, and a round listed twice counts once.
    public static func all(_ rounds: [PlayedRound], of players: [ParticipantID]? = nil) -> [PlayedCard] {
        var cards: [PlayedCard] = []
        for index in playedOrder(rounds) {
            let round = rounds[index]
            for card in round.cards where players?.contains(card.playerID) ?? true {
                cards.append(PlayedCard(round: round, playerID: card.playerID, name: card.name, strokes: card.strokes))
            }
        }
        return cards
    }

    /// The indices of `rounds` oldest round first (by the start's clock, then round id bytes),
    /// a round listed twice once. Indices, so that ordering moves no round.
    static func playedOrder(_ rounds: [PlayedRound]) -> [Int] {
        var seen: Set<UUID> = []
        return rounds.indices.filter { seen.insert(rounds[$0].id).inserted }
            .sorted { played(at: rounds[$0].startedAt, rounds[$0].id, before: rounds[$1].startedAt, rounds[$1].id) }
    }

    /// Rounds in the order they were played: start clock, then id bytes.
    public static func chronologically(_ lhs: Round, _ rhs: Round) -> Bool {
        played(at: lhs.startedAt, lhs.id, before: rhs.startedAt, rhs.id)
    }

    private static func played(at lhsStart: HLCTimestamp, _ lhs: UUID, before rhsStart: HLCTimestamp, _ rhs: UUID) -> Bool {
        if lhsStart != rhsStart { return lhsStart < rhsStart }
        return CanonicalOrder.precedes(lhs, rhs)
    }
}

/// Averages as every statistic prints them: rounded half away from zero to two decimals, so the
/// same sums give the same JSON bytes everywhere.
enum StatsAverage {
    static func of(_ sum: Int, over count: Int) -> Double? {
        guard count > 0 else { return nil }
        return (Double(sum) * 100 / Double(count)).rounded(.toNearestOrAwayFromZero) / 100
    }
}
