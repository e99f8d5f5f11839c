import Foundation
import HyzerDomain

/// Why a quick card (docs/domain.md, "Quick card") or an alias a card answers to is refused;
/// a refused card records nothing.
public enum CardError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// `alias` already names another player, `player`.
    case aliasTaken(alias: String, player: String)
    /// The card's text does not parse.
    case unreadable(QuickCard.ParseError)
    /// Two entries, `first` and `second`, name the same participant `player`.
    case participantTwice(player: String, first: String, second: String)
    /// The entry `entry` works out to `strokes` on `hole` of par `par`, outside 1...10.
    case strokesOutOfRange(entry: String, strokes: Int, hole: Int, par: Int)
    /// No hole was named and every hole of `round` (its id) has a score.
    case everyHoleScored(round: String)
    /// `text` matches no participant of `round` (its short id).
    case noParticipantMatches(text: String, round: String)
    /// `text` matches each of `candidates` (their names).
    case ambiguousName(text: String, candidates: [String])

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .aliasTaken(let alias, let player): "'\(alias)' already names \(player); choose an alias nobody else answers to"
        case .unreadable(let error): error.description
        case .participantTwice(let player, let first, let second):
            "\(player) is on the card twice ('\(first)' and '\(second)'); give each player once"
        case .strokesOutOfRange(let entry, let strokes, let hole, let par):
            "'\(entry)' is \(strokes) strokes on hole \(hole) (par \(par)); a hole's score is 1 to 10 strokes"
        case .everyHoleScored(let round): "every hole of round \(round) has a score; name the hole"
        case .noParticipantMatches(let text, let round): "'\(text)' matches no participant of round \(round)"
        case .ambiguousName(let text, let candidates):
            "'\(text)' could be any of \(candidates.joined(separator: ", ")); write more of the name"
        }
    }
}
