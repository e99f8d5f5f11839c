import Foundation

/// A whole hole's card typed in one line, like `Mike 3, Jake birdie, Sarah double bogey`
/// (docs/domain.md, "Quick card entry"): entries separated by commas, semicolons or new lines,
/// each a name followed by a score. The parse is pure; matching names to a round's participants
/// and pars to strokes happens when the card is recorded.
public struct QuickCard: Hashable, Sendable {
    /// A score as written: strokes, or strokes relative to the hole's par.
    public enum Score: Hashable, Sendable {
        /// Strokes, as a number or a word ("3", "three").
        case strokes(Int)
        /// Strokes relative to par, as golf's words say them ("birdie" is -1, "double bogey" is +2).
        case relativeToPar(Int)

        /// The strokes this score means on a hole of `par`.
        public func strokes(par: Int) -> Int {
            switch self {
            case .strokes(let strokes): strokes
            case .relativeToPar(let relative): par + relative
            }
        }
    }

    /// One entry: the name as typed (spaces collapsed) and its score, with the entry's text for messages.
    public struct Entry: Hashable, Sendable {
        /// The name as typed, its inner spaces collapsed: matched to a participant when the card is recorded.
        public let name: String
        /// The score the entry gives.
        public let score: Score
        /// The entry as written, for messages about it.
        public let text: String
    }

    /// A card that cannot be read, with the sentence that says why and what to write instead.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong with the card and how to write it instead.
        public let description: String
    }

    /// The longest card text accepted, in UTF-8 bytes, and the most entries.
    public static let maximumBytes = 4_096
    /// The most entries one card holds.
    public static let maximumEntries = 64

    /// The card's entries, in the order written.
    public let entries: [Entry]

    /// Words for strokes, and golf's words for strokes relative to par. Two-word terms come first.
    static let numberWords = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    static let golfTerms: [(words: [String], relative: Int)] = [
        (["double", "bogey"], 2), (["triple", "bogey"], 3), (["double", "eagle"], -3),
        (["albatross"], -3), (["eagle"], -2), (["birdie"], -1), (["par"], 0), (["bogey"], 1),
    ]
    static let hint = "write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""

    /// Parses one hole's card; throws ``ParseError`` for an empty card, text longer than ``maximumBytes``, more than
    /// ``maximumEntries`` entries, or an entry that is not a name followed by a score.
    public init(parsing text: String) throws(ParseError) {
        guard text.utf8.count <= Self.maximumBytes else {
            throw ParseError(description: "the card is longer than \(Self.maximumBytes) bytes; enter one hole at a time")
        }
        let pieces = text.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isNewline })
            .map { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
            .filter { !$0.isEmpty }
        guard !pieces.isEmpty else { throw ParseError(description: "the card is empty; \(Self.hint)") }
        guard pieces.count <= Self.maximumEntries else {
            throw ParseError(description: "the card has \(pieces.count) entries; a round has at most \(Self.maximumEntries) participants")
        }
        entries = try pieces.map { words throws(ParseError) in try Self.entry(words) }
    }

    private static func entry(_ words: [String]) throws(ParseError) -> Entry {
        let text = words.joined(separator: " ")
        let folded = words.map(NameFolding.folded)
        var score: Score?
        var scoreWords = 1
        if let last = folded.last {
            if let term = golfTerms.first(where: { folded.count >= $0.words.count && Array(folded.suffix($0.words.count)) == $0.words }) {
                score = .relativeToPar(term.relative)
                scoreWords = term.words.count
            } else if last == "ace" {
                score = .strokes(1)
            } else if let number = numberWords.firstIndex(of: last) {
                score = .strokes(number + 1)
            } else if last.count <= 2, last.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(last) {
                score = .strokes(number)
            }
        }
        guard let score else {
            guard words.count > 1 else { throw ParseError(description: "'\(text)' has no score; \(hint)") }
            throw ParseError(
                description:
                    "'\(words.last!)' in '\(text)' is not a score; use strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey"
            )
        }
        guard words.count > scoreWords else { throw ParseError(description: "'\(text)' names nobody; \(hint)") }
        return Entry(name: words.dropLast(scoreWords).joined(separator: " "), score: score, text: text)
    }
}
