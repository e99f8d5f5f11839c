import Foundation
import HyzerDomain

/// Why UDisc scorecards are refused (docs/domain.md, "UDisc import and export"): a file that is
/// not a UDisc export, a row that does not add up, a round the replica cannot take. One refusal
/// refuses every file: nothing is imported.
public enum UDiscImportError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// What is wrong with one row of a scorecard file.
    public enum RowProblem: Equatable, Sendable, CustomStringConvertible {
        /// `cells` cells where the header has `header`.
        case cellCount(cells: Int, header: Int)
        /// A row with no course name.
        case noCourseName
        /// `text` in `column` ("hole 3", "Total") is not a whole number.
        case notAWholeNumber(text: String, column: String)
        /// A Par row with a gap in its pars.
        case parGap
        /// Pars outside what a course holds: 1 to `holesMax` holes of a par in `parRange`.
        case parsOutOfRange(holesMax: Int, parRange: ClosedRange<Int>)
        /// A Par row whose Total (`nil` when empty) is not the sum of its pars.
        case parTotalMismatch(total: Int?, sum: Int)
        /// A date longer than `limit` bytes.
        case dateTooLong(limit: Int)
        /// A player row with no Par row above it for its course, layout and date.
        case noParRow(course: String, layout: String, date: String)
        /// A player name a replica refuses.
        case unusablePlayerName(InputError)
        /// Strokes beyond the layout's `holes` holes.
        case strokesBeyondLayout(holes: Int)
        /// Player `name` has `strokes` on `hole`, outside 1...10.
        case strokesOutOfRange(name: String, strokes: Int, hole: Int)
        /// Player `name`'s Total (`nil` when empty) is not the sum of the holes.
        case holeTotalMismatch(name: String, total: Int?, sum: Int)
        /// Player `name`'s +/- cell `given` is not `actual`, the score against the par of the holes played.
        case plusMinusMismatch(name: String, given: String, actual: Int)
        /// Player `name` appears twice in one round.
        case playerTwice(name: String, course: String, date: String)
        /// One player more than a round's `limit` participants.
        case tooManyPlayers(limit: Int)

        /// What is wrong with the row, in one sentence.
        public var description: String {
            switch self {
            case .cellCount(let cells, let header): "has \(cells) cells where the header has \(header)"
            case .noCourseName: "has no course name"
            case .notAWholeNumber(let text, let column): "has '\(text)' as \(column), which is not a whole number"
            case .parGap: "is a Par row with a gap in its pars; every hole of the layout needs a par"
            case .parsOutOfRange(let holesMax, let parRange):
                "has pars a replica cannot hold: 1 to \(holesMax) holes of par \(parRange.lowerBound) to \(parRange.upperBound)"
            case .parTotalMismatch(let total, let sum): "says Total \(total.map(String.init) ?? "(empty)") but its pars add up to \(sum)"
            case .dateTooLong(let limit): "has a date longer than \(limit) bytes"
            case .noParRow(let course, let layout, let date): "has no Par row above it for \(course) (\(layout)) on \(date)"
            case .unusablePlayerName(let error): "has an unusable player name (\(error))"
            case .strokesBeyondLayout(let holes): "has strokes beyond the layout's \(holes) holes"
            case .strokesOutOfRange(let name, let strokes, let hole):
                "(\(name)) has \(strokes) strokes on hole \(hole); a hole's score is 1 to 10 strokes"
            case .holeTotalMismatch(let name, let total, let sum):
                "(\(name)) says Total \(total.map(String.init) ?? "(empty)") but its holes add up to \(sum)"
            case .plusMinusMismatch(let name, let given, let actual):
                "(\(name)) says +/- \(given) but its holes are \(ScoreFormatting.formatted(actual)) against the par of the holes played"
            case .playerTwice(let name, let course, let date): "names \(name) a second time in the round of \(course) on \(date)"
            case .tooManyPlayers(let limit): "is one player too many: a round has at most \(limit) participants"
            }
        }
    }

    /// The file does not parse as CSV (`detail` says where).
    case notCSV(detail: String)
    /// The header lacks the columns of a UDisc export.
    case notAScorecardHeader
    /// The header has no hole columns.
    case noHoleColumns
    /// Row `row` (1 is the header) does not add up.
    case row(Int, RowProblem)
    /// Imported rounds are organized by this device's owner, and it has none.
    case noOwner
    /// The player `name` of row `row` matches `matches` registered players.
    case ambiguousPlayer(row: Int, name: String, matches: Int)
    /// The round of `course` on `date` names one player twice (by name and alias).
    case playerTwiceInRound(course: String, date: String)

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .notCSV(let detail): "it is not valid CSV (\(detail)); export the scorecards from UDisc again"
        case .notAScorecardHeader:
            "it is not a UDisc scorecard export: the header needs PlayerName, CourseName, LayoutName, a date, Total and +/- columns"
        case .noHoleColumns: "it is not a UDisc scorecard export: it has no hole columns"
        case .row(let row, let problem): "row \(row) \(problem)"
        case .noOwner: "imported rounds are organized by this device's owner, and it has none; create the store with an owner"
        case .ambiguousPlayer(let row, let name, let matches):
            "row \(row) names \(name), which matches \(matches) players; rename one of them first"
        case .playerTwiceInRound(let course, let date): "the round of \(course) on \(date) names one player twice (by name and alias)"
        }
    }
}
