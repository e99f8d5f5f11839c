import HyzerDomain

/// The seeds' score colours: a hole is green under par, white at par, amber bogey, red double
/// bogey or worse; a total is green under par, white at par, amber over par.
enum ScoreColour {
    /// The colour of one hole's score.
    static func of(_ relativeToPar: Int) -> Terminal.Colour {
        colour(ScoreTier(relativeToPar: relativeToPar))
    }

    /// The colour of a total (standings, a breakdown's total row, stats).
    static func total(_ relativeToPar: Int) -> Terminal.Colour {
        colour(ScoreTier.total(relativeToPar: relativeToPar))
    }

    private static func colour(_ tier: ScoreTier) -> Terminal.Colour {
        switch tier {
        case .underPar: .green
        case .atPar: .white
        case .overPar: .amber
        case .wayOver: .red
        }
    }
}
