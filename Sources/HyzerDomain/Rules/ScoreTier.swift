/// The colour tier of one hole's score relative to par (docs/rules.md, "Hole-by-hole breakdown").
/// Terminal colours follow the seeds' tokens: green, white, amber and red.
public enum ScoreTier: String, Codable, Sendable {
    /// Below par (birdie or better): green.
    case underPar
    /// Exactly par: white.
    case atPar
    /// One over par (bogey): amber.
    case overPar
    /// Two or more over par (double bogey or worse): red.
    case wayOver

    /// The tier of a score `relativeToPar` strokes from par: negative is `underPar`, 0 is
    /// `atPar`, +1 is `overPar`, +2 and above is `wayOver`.
    public init(relativeToPar: Int) {
        switch relativeToPar {
        case ..<0: self = .underPar
        case 0: self = .atPar
        case 1: self = .overPar
        default: self = .wayOver
        }
    }
}
