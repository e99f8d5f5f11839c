/// Where a round is in its life, derived from its ops (docs/rules.md, "Round status").
public enum RoundStatus: String, Codable, Sendable {
    /// Started; some participant still lacks a score on some hole, or a hole is disputed.
    case active
    /// Every participant has a score on every hole and no hole is disputed; no valid finish yet.
    case awaitingFinalization
    /// A valid finish op (from a device owning the organizer) exists.
    case completed
}
