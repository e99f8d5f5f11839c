/// How a score relative to par is written everywhere: in tables, in `--json` output and in
/// the breakdown's summary row.
public enum ScoreFormatting {
    /// `"E"` (even) for 0, `"+n"` above par, `"-n"` below par.
    ///
    /// ```swift
    /// ScoreFormatting.formatted(0)   // "E"
    /// ScoreFormatting.formatted(3)   // "+3"
    /// ScoreFormatting.formatted(-2)  // "-2"
    /// ```
    public static func formatted(_ relativeToPar: Int) -> String {
        if relativeToPar == 0 { return "E" }
        return relativeToPar > 0 ? "+\(relativeToPar)" : "\(relativeToPar)"
    }
}
