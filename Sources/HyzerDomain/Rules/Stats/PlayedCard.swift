import Foundation

/// One participant's full card in one completed round: the unit every statistic reads
/// (docs/domain.md, "Stats").
///
/// A card counts only when its round is completed (has a valid finish) and the participant has
/// a score on every hole: a forced finish with holes missing would make a partial round look
/// like a great one. A disputed hole counts its chosen leaf, as the standings do.
public struct PlayedCard: Hashable, Sendable {
    public let round: Round
    public let playerID: ParticipantID
    public let name: String
    /// Strokes on hole `n` at index `n - 1`.
    public let strokes: [Int]

    public var totalStrokes: Int { strokes.reduce(0, +) }
    public var relativeToPar: Int { totalStrokes - round.totalPar }
    /// When the round started, in milliseconds since the Unix epoch (its start op's clock).
    public var startedAt: UInt64 { round.startedAt.physicalMilliseconds }

    /// Every full card of every completed round in `evaluations`, oldest round first: by the
    /// start's clock, then round id bytes; within a round, in participant order. The order of
    /// `evaluations` does not matter, and a round listed twice counts once.
    public static func all(_ evaluations: [RoundEvaluation]) -> [PlayedCard] {
        var seen: Set<UUID> = []
        let completed = evaluations.filter { $0.finish != nil && seen.insert($0.round.id).inserted }
            .sorted { chronologically($0.round, $1.round) }
        var cards: [PlayedCard] = []
        for evaluation in completed {
            for participant in evaluation.participants {
                let holes = (0..<evaluation.round.holeCount).map { evaluation.score(player: participant.id, hole: $0 + 1).strokes }
                guard !holes.isEmpty, holes.allSatisfy({ $0 != nil }) else { continue }
                cards.append(
                    PlayedCard(round: evaluation.round, playerID: participant.id, name: participant.name, strokes: holes.compactMap { $0 }))
            }
        }
        return cards
    }

    /// Rounds in the order they were played: start clock, then id bytes.
    public static func chronologically(_ lhs: Round, _ rhs: Round) -> Bool {
        if lhs.startedAt != rhs.startedAt { return lhs.startedAt < rhs.startedAt }
        return CanonicalOrder.precedes(lhs.id, rhs.id)
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
