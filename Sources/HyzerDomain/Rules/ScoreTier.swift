/// The colour tier of a score relative to par (docs/domain.md, "Colours"). A hole's score has
/// four tiers (green, white, amber, red); a total has three (green under par, white at par, amber
/// over par): a round at +2 is over par, not a double bogey.
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

    /// The tier of a total (a round, a standings row) `relativeToPar` strokes from par: negative
    /// is `underPar`, 0 is `atPar`, anything above is `overPar` — never `wayOver`.
    public static func total(relativeToPar: Int) -> ScoreTier {
        relativeToPar < 0 ? .underPar : relativeToPar == 0 ? .atPar : .overPar
    }
}
