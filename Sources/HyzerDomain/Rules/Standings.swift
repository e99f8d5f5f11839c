/// One row of a round's leaderboard (docs/rules.md, "Standings"). The field names are the public
/// contract of `standings --json` (docs/cli.md): add fields freely, never rename or drop one.
public struct StandingsEntry: Codable, Hashable, Sendable {
    /// Competition ranking by `relativeToPar`: equal scores share a position and the next one
    /// skips (1, 1, 3). Participants with no score share the position after the last scored one.
    public var position: Int
    /// The participant (its JSON: a registered player's lowercase UUID or `guest:<uuid>`).
    public var playerID: ParticipantID
    /// The participant's name as the round lists it.
    public var name: String
    /// Strokes over the scored holes; a disputed hole counts its chosen leaf.
    public var totalStrokes: Int
    /// The number of scored holes, disputed ones included.
    public var holesPlayed: Int
    /// Σ(strokes − par) over the scored holes.
    public var relativeToPar: Int
    /// `relativeToPar` as `ScoreFormatting.formatted(_:)` writes it: `E`, `+n` or `-n`.
    public var formatted: String
    /// How many of the scored holes are disputed.
    public var disputedHoles: Int

    /// An entry with every field given; views read `RoundEvaluation.standings`.
    public init(
        position: Int, playerID: ParticipantID, name: String, totalStrokes: Int, holesPlayed: Int,
        relativeToPar: Int, formatted: String, disputedHoles: Int
    ) {
        self.position = position
        self.playerID = playerID
        self.name = name
        self.totalStrokes = totalStrokes
        self.holesPlayed = holesPlayed
        self.relativeToPar = relativeToPar
        self.formatted = formatted
        self.disputedHoles = disputedHoles
    }
}

extension StandingsEntry {
    /// The leaderboard from each participant's unranked entry (position ignored).
    ///
    /// Scored participants (`holesPlayed > 0`) come first, ordered by `relativeToPar`, then name,
    /// then player id — names and ids compared by their UTF-8 bytes, so the order is the same
    /// in every locale — and ranked 1, 1, 3. Participants with no score follow, ordered by name
    /// then id, all at the position after the last scored participant (1, 2, 2, then 4, 4). When
    /// nobody has scored, everyone is at position 1.
    static func ranked(_ unranked: [StandingsEntry]) -> [StandingsEntry] {
        let scored = unranked.filter { $0.holesPlayed > 0 }.sorted { lhs, rhs in
            if lhs.relativeToPar != rhs.relativeToPar { return lhs.relativeToPar < rhs.relativeToPar }
            return precedesByNameThenID(lhs, rhs)
        }
        let unscored = unranked.filter { $0.holesPlayed == 0 }.sorted(by: precedesByNameThenID)

        var ranked: [StandingsEntry] = []
        ranked.reserveCapacity(unranked.count)
        for (index, entry) in scored.enumerated() {
            var entry = entry
            if let previous = ranked.last, previous.relativeToPar == entry.relativeToPar {
                entry.position = previous.position
            } else {
                entry.position = index + 1
            }
            ranked.append(entry)
        }
        for entry in unscored {
            var entry = entry
            entry.position = scored.count + 1
            ranked.append(entry)
        }
        return ranked
    }

    private static func precedesByNameThenID(_ lhs: StandingsEntry, _ rhs: StandingsEntry) -> Bool {
        if lhs.name != rhs.name { return CanonicalOrder.precedes(lhs.name, rhs.name) }
        return lhs.playerID < rhs.playerID
    }
}
