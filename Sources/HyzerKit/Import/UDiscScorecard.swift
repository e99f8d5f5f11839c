import Foundation
import HyzerDomain
import SwiftCSV

/// A UDisc scorecard export (docs/formats.md, "UDisc CSV"), read and checked whole: every round
/// in it with its Par row and its players' holes. Reading is pure; `Replica.importUDisc` writes.
///
/// The columns are found by position around the `+/-` column, so headers translated by the
/// phone's language read alike: `PlayerName, CourseName, LayoutName`, then `Date, Total, +/-`
/// (older exports) or `StartDate, EndDate, Total, +/-, RoundRating` (newer), then one column per
/// hole.
public struct UDiscScorecard: Sendable {
    /// One round: a Par row and the player rows after it with the same course, layout and date.
    public struct Round: Sendable {
        /// The course name as written.
        public let course: String
        /// The layout name as written; empty when the export has none.
        public let layout: String
        /// StartDate (or an older export's Date), as written; it also groups the rows.
        public let date: String
        /// EndDate as written; empty in an older export.
        public let endDate: String
        /// The Par row's par of hole `n` at index `n - 1`.
        public let pars: [Int]
        /// The round's player rows, in the file's order.
        public let players: [Card]

        /// The course name a replica uses: `Course · Layout`, or the course alone without a layout.
        public var courseName: String { layout.isEmpty ? course : "\(course) · \(layout)" }
    }

    /// One player's row; `nil` for a hole not played (an empty cell or 0).
    public struct Card: Sendable {
        /// The player's name as written.
        public let name: String
        /// Strokes of hole `n` at index `n - 1`.
        public let strokes: [Int?]
        /// The row's number in the file, as messages name it.
        public let row: Int
    }

    /// The largest file read, checked before reading.
    public static let maximumBytes = 8 * 1_048_576

    /// Every round in the file, in the order their Par rows appear.
    public let rounds: [Round]

    /// Reads `text`; any row that does not add up refuses the whole file with a message naming it.
    public init(text: String) throws(UDiscImportError) {
        let csv: EnumeratedCSV
        do {
            csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false)
        } catch {
            throw UDiscImportError.notCSV(detail: "\(error)")
        }
        let header = csv.header.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let plusMinus = header.firstIndex(of: "+/-"), plusMinus == 5 || plusMinus == 6 else {
            throw UDiscImportError.notAScorecardHeader
        }
        let newer = plusMinus == 6
        let layout = Layout(
            date: 3, endDate: newer ? 4 : nil, total: plusMinus - 1, plusMinus: plusMinus, firstHole: plusMinus + (newer ? 2 : 1))
        let holeColumns = header.count - layout.firstHole
        guard holeColumns >= 1 else { throw UDiscImportError.noHoleColumns }

        var rounds: [(key: Key, endDate: String, pars: [Int], players: [Card])] = []
        for (index, cells) in csv.rows.enumerated() {
            let row = index + 2
            guard cells.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            guard cells.count == header.count else {
                throw .row(row, .cellCount(cells: cells.count, header: header.count))
            }
            let cell = { (column: Int) in cells[column].trimmingCharacters(in: .whitespaces) }
            let key = Key(course: cell(1), layout: cell(2), date: cell(layout.date))
            guard !key.course.isEmpty else { throw .row(row, .noCourseName) }
            let name = cell(0)
            let holes = try (0..<holeColumns).map { hole throws(UDiscImportError) in
                try Self.number(cell(layout.firstHole + hole), row, "hole \(hole + 1)")
            }
            let total = try Self.number(cell(layout.total), row, "Total")
            let relative = cell(layout.plusMinus)
            if name == "Par" {
                // A Par row starts a round; the player rows after it with its course, layout and date belong to it.
                let given = Array(holes.prefix { $0 != nil }.compactMap { $0 })
                guard holes.dropFirst(given.count).allSatisfy({ $0 == nil }), !given.isEmpty else {
                    throw .row(row, .parGap)
                }
                guard given.count <= OpPayload.Limits.holesMax, given.allSatisfy({ Validation.parRange.contains($0) }) else {
                    throw .row(row, .parsOutOfRange(holesMax: OpPayload.Limits.holesMax, parRange: Validation.parRange))
                }
                guard total == given.reduce(0, +) else {
                    throw .row(row, .parTotalMismatch(total: total, sum: given.reduce(0, +)))
                }
                let endDate = layout.endDate.map(cell) ?? ""
                guard key.date.utf8.count <= OpPayload.Limits.nameBytesMax, endDate.utf8.count <= OpPayload.Limits.nameBytesMax else {
                    throw .row(row, .dateTooLong(limit: OpPayload.Limits.nameBytesMax))
                }
                rounds.append((key, endDate, given, []))
                continue
            }
            guard let current = rounds.last, current.key == key else {
                throw .row(row, .noParRow(course: key.course, layout: key.layout, date: key.date))
            }
            let pars = current.pars
            do {
                try Validation.name(name, of: "player")
            } catch {
                throw .row(row, .unusablePlayerName(error))
            }
            guard holes.dropFirst(pars.count).allSatisfy({ $0 == nil || $0 == 0 }) else {
                throw .row(row, .strokesBeyondLayout(holes: pars.count))
            }
            let strokes = holes.prefix(pars.count).map { $0 == 0 ? nil : $0 }
            if let bad = strokes.enumerated().first(where: { $0.element.map { !ScoreEvent.strokeRange.contains($0) } ?? false }) {
                throw .row(row, .strokesOutOfRange(name: name, strokes: bad.element!, hole: bad.offset + 1))
            }
            let sum = strokes.reduce(0) { $0 + ($1 ?? 0) }
            var parPlayed = 0
            for (hole, value) in strokes.enumerated() where value != nil { parPlayed += pars[hole] }
            guard total == sum else {
                throw .row(row, .holeTotalMismatch(name: name, total: total, sum: sum))
            }
            if !relative.isEmpty {
                guard let given = Int(relative), given == sum - parPlayed else {
                    throw .row(row, .plusMinusMismatch(name: name, given: relative, actual: sum - parPlayed))
                }
            }
            guard !current.players.contains(where: { NameFolding.folded($0.name) == NameFolding.folded(name) }) else {
                throw .row(row, .playerTwice(name: name, course: key.course, date: key.date))
            }
            guard current.players.count < OpPayload.Limits.participantsMax else {
                throw .row(row, .tooManyPlayers(limit: OpPayload.Limits.participantsMax))
            }
            rounds[rounds.count - 1].players.append(Card(name: name, strokes: strokes, row: row))
        }
        self.rounds = rounds.map {
            Round(
                course: $0.key.course, layout: $0.key.layout, date: $0.key.date, endDate: $0.endDate, pars: $0.pars, players: $0.players)
        }
    }

    private struct Key: Hashable {
        let course: String
        let layout: String
        let date: String
    }

    private struct Layout {
        let date: Int
        let endDate: Int?
        let total: Int
        let plusMinus: Int
        let firstHole: Int
    }

    private static func number(_ text: String, _ row: Int, _ column: String) throws(UDiscImportError) -> Int? {
        if text.isEmpty { return nil }
        guard text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else {
            throw .row(row, .notAWholeNumber(text: text, column: column))
        }
        return value
    }
}
