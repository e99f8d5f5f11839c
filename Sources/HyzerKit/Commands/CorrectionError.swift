import Foundation

/// Why this device cannot correct one of its score events (docs/domain.md, "Corrections").
public enum CorrectionError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// The event (its id) names no participant or hole of its round: it is not a valid score.
    case notAValidScore(event: String)
    /// The event (its id) was already superseded by a newer one.
    case alreadyCorrected(event: String)

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .notAValidScore(let event): "event \(event) is not a valid score, so it cannot be corrected"
        case .alreadyCorrected(let event): "event \(event) was already corrected; correct the newer event instead"
        }
    }
}
