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
        public let course: String
        public let layout: String
        /// StartDate (or an older export's Date), as written; it also groups the rows.
        public let date: String
        /// EndDate as written; empty in an older export.
        public let endDate: String
        public let pars: [Int]
        public let players: [Card]

        /// The course name a replica uses: `Course · Layout`, or the course alone without a layout.
        public var courseName: String { layout.isEmpty ? course : "\(course) · \(layout)" }
    }

    /// One player's row; `nil` for a hole not played (an empty cell or 0).
    public struct Card: Sendable {
        public let name: String
        public let strokes: [Int?]
        public let row: Int
    }

    /// The largest file read, checked before reading.
    public static let maximumBytes = 8 * 1_048_576

    public let rounds: [Round]

    /// Reads `text`; any row that does not add up refuses the whole file with a message naming it.
    public init(text: String) throws(ReplicaError) {
        let csv: EnumeratedCSV
        do {
            csv = try EnumeratedCSV(string: text, delimiter: .comma, loadColumns: false)
        } catch {
            throw ReplicaError.invalidValue("it is not valid CSV (\(error)); export the scorecards from UDisc again")
        }
        let header = csv.header.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let plusMinus = header.firstIndex(of: "+/-"), plusMinus == 5 || plusMinus == 6 else {
            throw ReplicaError.invalidValue(
                "it is not a UDisc scorecard export: the header needs PlayerName, CourseName, LayoutName, a date, Total and +/- columns")
        }
        let newer = plusMinus == 6
        let layout = Layout(
            date: 3, endDate: newer ? 4 : nil, total: plusMinus - 1, plusMinus: plusMinus, firstHole: plusMinus + (newer ? 2 : 1))
        let holeColumns = header.count - layout.firstHole
        guard holeColumns >= 1 else { throw ReplicaError.invalidValue("it is not a UDisc scorecard export: it has no hole columns") }

        var rounds: [(key: Key, endDate: String, pars: [Int], players: [Card])] = []
        for (index, cells) in csv.rows.enumerated() {
            let row = index + 2
            guard cells.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { continue }
            guard cells.count == header.count else {
                throw Self.error(row, "has \(cells.count) cells where the header has \(header.count)")
            }
            let cell = { (column: Int) in cells[column].trimmingCharacters(in: .whitespaces) }
            let key = Key(course: cell(1), layout: cell(2), date: cell(layout.date))
            guard !key.course.isEmpty else { throw Self.error(row, "has no course name") }
            let name = cell(0)
            let holes = try (0..<holeColumns).map { hole throws(ReplicaError) in
                try Self.number(cell(layout.firstHole + hole), row, "hole \(hole + 1)")
            }
            let total = try Self.number(cell(layout.total), row, "Total")
            let relative = cell(layout.plusMinus)
            if name == "Par" {
                // A Par row starts a round; the player rows after it with its course, layout and date belong to it.
                let given = Array(holes.prefix { $0 != nil }.compactMap { $0 })
                guard holes.dropFirst(given.count).allSatisfy({ $0 == nil }), !given.isEmpty else {
                    throw Self.error(row, "is a Par row with a gap in its pars; every hole of the layout needs a par")
                }
                guard given.count <= OpPayload.Limits.holesMax, given.allSatisfy({ (2...7).contains($0) }) else {
                    throw Self.error(row, "has pars hyzer-peer cannot hold: 1 to \(OpPayload.Limits.holesMax) holes of par 2 to 7")
                }
                guard total == given.reduce(0, +) else {
                    throw Self.error(row, "says Total \(total.map(String.init) ?? "(empty)") but its pars add up to \(given.reduce(0, +))")
                }
                let endDate = layout.endDate.map(cell) ?? ""
                guard key.date.utf8.count <= OpPayload.Limits.nameBytesMax, endDate.utf8.count <= OpPayload.Limits.nameBytesMax else {
                    throw Self.error(row, "has a date longer than \(OpPayload.Limits.nameBytesMax) bytes")
                }
                rounds.append((key, endDate, given, []))
                continue
            }
            guard let current = rounds.last, current.key == key else {
                throw Self.error(row, "has no Par row above it for \(key.course) (\(key.layout)) on \(key.date)")
            }
            let pars = current.pars
            do {
                try Validation.name(name, of: "player")
            } catch {
                throw Self.error(row, "has an unusable player name (\(error))")
            }
            guard holes.dropFirst(pars.count).allSatisfy({ $0 == nil || $0 == 0 }) else {
                throw Self.error(row, "has strokes beyond the layout's \(pars.count) holes")
            }
            let strokes = holes.prefix(pars.count).map { $0 == 0 ? nil : $0 }
            if let bad = strokes.enumerated().first(where: { $0.element.map { !ScoreEvent.strokeRange.contains($0) } ?? false }) {
                throw Self.error(row, "(\(name)) has \(bad.element!) strokes on hole \(bad.offset + 1); a hole's score is 1 to 10 strokes")
            }
            let sum = strokes.reduce(0) { $0 + ($1 ?? 0) }
            var parPlayed = 0
            for (hole, value) in strokes.enumerated() where value != nil { parPlayed += pars[hole] }
            guard total == sum else {
                throw Self.error(row, "(\(name)) says Total \(total.map(String.init) ?? "(empty)") but its holes add up to \(sum)")
            }
            if !relative.isEmpty {
                guard let given = Int(relative), given == sum - parPlayed else {
                    throw Self.error(
                        row,
                        "(\(name)) says +/- \(relative) but its holes are \(ScoreFormatting.formatted(sum - parPlayed)) against the par of the holes played"
                    )
                }
            }
            guard !current.players.contains(where: { NameFolding.folded($0.name) == NameFolding.folded(name) }) else {
                throw Self.error(row, "names \(name) a second time in the round of \(key.course) on \(key.date)")
            }
            guard current.players.count < OpPayload.Limits.participantsMax else {
                throw Self.error(row, "is one player too many: a round has at most \(OpPayload.Limits.participantsMax) participants")
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

    private static func number(_ text: String, _ row: Int, _ column: String) throws(ReplicaError) -> Int? {
        if text.isEmpty { return nil }
        guard text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else {
            throw error(row, "has '\(text)' as \(column), which is not a whole number")
        }
        return value
    }

    private static func error(_ row: Int, _ text: String) -> ReplicaError {
        .invalidValue("row \(row) \(text)")
    }
}
