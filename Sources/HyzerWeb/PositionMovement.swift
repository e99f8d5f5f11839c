import HyzerDomain

/// Places gained or lost on the leaderboard since the latest hole anyone has played: the
/// standings now against the standings with every card cut before that hole. A pure function of
/// the round's valid scores, so every replica draws the same arrows.
enum PositionMovement {
    /// Places gained (positive) or lost (negative) per participant; empty before any score.
    static func placesGained(_ evaluation: RoundEvaluation) -> [ParticipantID: Int] {
        let cards = evaluation.participants.compactMap { evaluation.breakdown(player: $0.id) }
        let latest = cards.flatMap { card in card.holes.filter { $0.strokes != nil }.map(\.hole) }.max()
        guard let latest else { return [:] }
        let before = cards.map { card -> (id: ParticipantID, relative: Int?) in
            let played = card.holes.filter { $0.hole < latest }.compactMap { hole in hole.strokes.map { $0 - hole.par } }
            return (card.playerID, played.isEmpty ? nil : played.reduce(0, +))
        }
        let previous = positions(before)
        let now = positions(evaluation.standings.map { ($0.playerID, $0.holesPlayed > 0 ? $0.relativeToPar : nil) })
        var gained: [ParticipantID: Int] = [:]
        for (id, position) in now {
            if let earlier = previous[id] { gained[id] = earlier - position }
        }
        return gained
    }

    /// Standard competition ranking, as the standings rank: ties share the better place, players
    /// without a score come after everyone with one.
    static func positions(_ scores: [(id: ParticipantID, relative: Int?)]) -> [ParticipantID: Int] {
        let scored = scores.compactMap(\.relative)
        var positions: [ParticipantID: Int] = [:]
        for (id, relative) in scores {
            positions[id] = relative.map { mine in 1 + scored.count { $0 < mine } } ?? scored.count + 1
        }
        return positions
    }
}
