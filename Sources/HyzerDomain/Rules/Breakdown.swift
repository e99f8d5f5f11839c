/// One player's hole-by-hole scores in a round, with the summary row (docs/rules.md, "Hole-by-hole
/// breakdown"). The field names are the public contract of `breakdown --json` (docs/cli.md).
public struct Breakdown: Codable, Hashable, Sendable {
    /// The round (its JSON: the lowercase UUID).
    public var round: RoundID
    /// The participant id.
    public var playerID: ParticipantID
    /// The participant's name as the round lists it.
    public var name: String
    /// Every hole of the round, in order, scored or not.
    public var holes: [BreakdownHole]
    /// Strokes over the scored holes.
    public var totalStrokes: Int
    /// Par of the scored holes only, so that `totalStrokes - totalPar == relativeToPar`.
    public var totalPar: Int
    /// Σ(strokes − par) over the scored holes.
    public var relativeToPar: Int
    /// `relativeToPar` as `ScoreFormatting.formatted(_:)` writes it.
    public var formatted: String

    /// A breakdown with every field given; views build one with `RoundEvaluation.breakdown(player:)`.
    public init(
        round: RoundID, playerID: ParticipantID, name: String, holes: [BreakdownHole], totalStrokes: Int,
        totalPar: Int, relativeToPar: Int, formatted: String
    ) {
        self.round = round
        self.playerID = playerID
        self.name = name
        self.holes = holes
        self.totalStrokes = totalStrokes
        self.totalPar = totalPar
        self.relativeToPar = relativeToPar
        self.formatted = formatted
    }

    /// The breakdown of holes, totalled over those that are scored.
    init(round: RoundID, playerID: ParticipantID, name: String, holes: [BreakdownHole]) {
        var totalStrokes = 0
        var totalPar = 0
        for hole in holes {
            guard let strokes = hole.strokes else { continue }
            totalStrokes += strokes
            totalPar += hole.par
        }
        self.init(
            round: round, playerID: playerID, name: name, holes: holes, totalStrokes: totalStrokes,
            totalPar: totalPar, relativeToPar: totalStrokes - totalPar,
            formatted: ScoreFormatting.formatted(totalStrokes - totalPar)
        )
    }
}

/// One hole of a `Breakdown`. An unscored hole has `nil` strokes, `relativeToPar`, `formatted`
/// and `tier`, which JSON writes as explicit `null`s so that every key is always present.
public struct BreakdownHole: Codable, Hashable, Sendable {
    /// The hole number, from 1.
    public var hole: Int
    /// The hole's par, as the round copied it from the course when it started.
    public var par: Int
    /// The counted strokes (a disputed hole's chosen leaf), or `nil` when unscored.
    public var strokes: Int?
    /// `strokes - par`, or `nil` when unscored.
    public var relativeToPar: Int?
    /// `relativeToPar` as `ScoreFormatting.formatted(_:)` writes it, or `nil` when unscored.
    public var formatted: String?
    /// The colour tier of `relativeToPar`, or `nil` when unscored.
    public var tier: ScoreTier?
    /// Whether the hole's leaves disagree (see `Discrepancy`).
    public var disputed: Bool

    /// A hole with every field given.
    public init(
        hole: Int, par: Int, strokes: Int?, relativeToPar: Int?, formatted: String?, tier: ScoreTier?,
        disputed: Bool
    ) {
        self.hole = hole
        self.par = par
        self.strokes = strokes
        self.relativeToPar = relativeToPar
        self.formatted = formatted
        self.tier = tier
        self.disputed = disputed
    }

    /// Hole `hole` with par `par` and its current score.
    public init(hole: Int, par: Int, score: HoleScore) {
        let relativeToPar = score.strokes.map { $0 - par }
        self.init(
            hole: hole, par: par, strokes: score.strokes, relativeToPar: relativeToPar,
            formatted: relativeToPar.map(ScoreFormatting.formatted), tier: relativeToPar.map(ScoreTier.init),
            disputed: score.isDisputed
        )
    }

    enum CodingKeys: String, CodingKey {
        case hole, par, strokes, relativeToPar, formatted, tier, disputed
    }

    /// Writes every key, `null` for the fields of an unscored hole.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hole, forKey: .hole)
        try container.encode(par, forKey: .par)
        try container.encode(strokes, forKey: .strokes)
        try container.encode(relativeToPar, forKey: .relativeToPar)
        try container.encode(formatted, forKey: .formatted)
        try container.encode(tier, forKey: .tier)
        try container.encode(disputed, forKey: .disputed)
    }
}
