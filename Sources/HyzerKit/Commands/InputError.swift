import Foundation

/// A name or number a command refuses before it writes: names of players, courses, guests,
/// aliases and devices, a course's holes and pars.
public enum InputError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// A `kind` name ("player", "course", …) that is empty or only spaces.
    case emptyName(kind: String)
    /// A `kind` name that starts or ends with spaces.
    case nameHasSurroundingSpaces(kind: String)
    /// A `kind` name longer than `limit` bytes of UTF-8.
    case nameTooLong(kind: String, limit: Int)
    /// A `kind` name with a control character in it.
    case nameHasControlCharacters(kind: String)
    /// A course of `holes` holes, outside 1...`limit`.
    case holeCountOutOfRange(holes: Int, limit: Int)
    /// `count` pars given for a course, outside 1...`limit` (one par per hole).
    case parCountOutOfRange(count: Int, limit: Int)
    /// A par outside `range`.
    case parOutOfRange(par: Int, range: ClosedRange<Int>)

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .emptyName(let kind): "a \(kind) name cannot be empty"
        case .nameHasSurroundingSpaces(let kind): "a \(kind) name cannot start or end with spaces"
        case .nameTooLong(let kind, let limit): "a \(kind) name is limited to \(limit) bytes"
        case .nameHasControlCharacters(let kind): "a \(kind) name cannot contain control characters"
        case .holeCountOutOfRange(let holes, let limit): "a course has 1 to \(limit) holes, not \(holes)"
        case .parCountOutOfRange(_, let limit): "a course has 1 to \(limit) holes; give one par per hole"
        case .parOutOfRange(let par, let range):
            "par \(par) is impossible: a hole's par is \(range.lowerBound) to \(range.upperBound)"
        }
    }
}
