import HyzerDomain

/// The seeds' score colours: green under par, white at par, amber bogey, red double bogey or worse.
enum ScoreColour {
    static func of(_ relativeToPar: Int) -> Terminal.Colour {
        switch ScoreTier(relativeToPar: relativeToPar) {
        case .underPar: .green
        case .atPar: .white
        case .overPar: .amber
        case .wayOver: .red
        }
    }
}
