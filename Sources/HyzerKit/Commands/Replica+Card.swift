import Foundation
import GRDB
import HyzerDomain

/// One line of a recorded card.
public struct CardLine: Sendable {
    /// The participant the entry named.
    public let participant: Participant
    /// The strokes recorded, 1 to 10.
    public let strokes: Int
    /// The hole's par in the round.
    public let par: Int
    /// The score event the entry wrote.
    public let event: ScoreEvent
}

/// A card recorded by `card`: the hole and one line per entry, in the card's order.
public struct RecordedCard: Sendable {
    /// The round the card was recorded in.
    public let round: Round
    /// The hole, 1-based.
    public let hole: Int
    /// One line per entry, in the card's order.
    public let lines: [CardLine]
}

extension Replica {
    /// Adds `alias` as another name `card` accepts for `player`. Adding an alias the player
    /// already has changes nothing; one that names another player is refused.
    public func addAlias(player: String, alias: String) throws {
        try Validation.name(alias, of: "alias")
        try write { db in
            let reader = ViewReader(db: db)
            let id = try Self.resolvePlayer(player, reader)
            let aliases = try reader.aliases()
            let folded = NameFolding.folded(alias)
            for other in try reader.players() {
                let names = [other.displayName] + (aliases[other.id] ?? [])
                guard names.contains(where: { NameFolding.folded($0) == folded }) else { continue }
                if other.id == id { return }
                throw CardError.aliasTaken(alias: alias, player: other.displayName)
            }
            try append(.playerAliasAdded(playerID: id, alias: alias), in: db)
        }
    }

    /// Scores a whole card on `hole` (default: the next hole nobody has scored) in one
    /// transaction: every entry is matched and checked first, and anything ambiguous or unknown
    /// refuses the whole card. An entry this device already scored is corrected, as with `score`.
    @discardableResult
    public func recordCard(round: String, text: String, hole: Int?) throws -> RecordedCard {
        let card: QuickCard
        do {
            card = try QuickCard(parsing: text)
        } catch {
            throw CardError.unreadable(error)
        }
        return try write { db in
            let reader = ViewReader(db: db)
            let round = try Self.round(round, reader)
            let evaluation = try reader.evaluation(round, merge: policies.merge)
            guard evaluation.status != .completed else { throw ReplicaError.roundCompleted(round: round.id.lowercased) }
            let hole = try hole ?? Self.nextUnscoredHole(round, evaluation)
            try Validation.hole(hole, holeCount: round.holeCount)
            let par = round.pars[hole - 1]
            let names = try Self.cardNames(round, evaluation, reader)
            var seen: [ParticipantID: String] = [:]
            var planned: [(Participant, Int)] = []
            for entry in card.entries {
                let participant = try Self.match(entry.name, names, round: round)
                if let earlier = seen[participant.id] {
                    throw CardError.participantTwice(player: participant.name, first: earlier, second: entry.text)
                }
                seen[participant.id] = entry.text
                let strokes = entry.score.strokes(par: par)
                guard ScoreEvent.strokeRange.contains(strokes) else {
                    throw CardError.strokesOutOfRange(entry: entry.text, strokes: strokes, hole: hole, par: par)
                }
                planned.append((participant, strokes))
            }
            let lines = try planned.map { participant, strokes in
                CardLine(
                    participant: participant, strokes: strokes, par: par,
                    event: try appendScoreCorrectingOwn(round: round, evaluation, player: participant, hole: hole, strokes: strokes, db))
            }
            return RecordedCard(round: round, hole: hole, lines: lines)
        }
    }

    /// The first hole nobody has scored, counting from the one after the highest scored hole
    /// and wrapping around (a group that teed off on hole 7 goes on to 8, then 1 after 18).
    static func nextUnscoredHole(_ round: Round, _ evaluation: RoundEvaluation) throws -> Int {
        let scored = (1...round.holeCount).map { hole in
            evaluation.participants.contains { evaluation.score(player: $0.id, hole: hole) != .unscored }
        }
        let after = (scored.lastIndex(of: true) ?? -1) + 1
        for offset in 0..<round.holeCount where !scored[(after + offset) % round.holeCount] {
            return (after + offset) % round.holeCount + 1
        }
        throw CardError.everyHoleScored(round: round.id.lowercased)
    }

    /// Each participant with the folded names a card may call them: their name, and a registered
    /// player's aliases.
    private static func cardNames(
        _ round: Round, _ evaluation: RoundEvaluation, _ reader: ViewReader
    ) throws -> [(participant: Participant, names: [String])] {
        let aliases = try reader.aliases()
        return evaluation.participants.map { participant in
            let extra = participant.id.player.flatMap { aliases[$0.uuid] } ?? []
            return (participant, ([participant.name] + extra).map(NameFolding.folded))
        }
    }

    /// The one participant `text` names: a name or alias folded alike, else an unambiguous
    /// prefix of a name, an alias, or one of their words.
    private static func match(_ text: String, _ names: [(participant: Participant, names: [String])], round: Round) throws -> Participant {
        let folded = NameFolding.folded(text)
        let exact = names.filter { $0.names.contains(folded) }
        let candidates =
            !exact.isEmpty
            ? exact
            : names.filter { entry in
                entry.names.contains { name in
                    name.hasPrefix(folded) || name.split(separator: " ").contains { $0.hasPrefix(folded) }
                }
            }
        switch candidates.count {
        case 1:
            return candidates[0].participant
        case 0:
            throw CardError.noParticipantMatches(text: text, round: String(round.id.lowercased.prefix(8)))
        default:
            throw CardError.ambiguousName(text: text, candidates: candidates.map(\.participant.name))
        }
    }
}
