import Foundation
import GRDB
import HyzerDomain

/// What `import --udisc` did.
public struct UDiscImportReport: Sendable {
    /// Rounds newly written.
    public var roundsImported = 0
    /// Rounds this replica already held (the same course, players, pars and scores).
    public var roundsAlreadyHeld = 0
    /// Names of the courses the import created (`Course · Layout`).
    public var coursesCreated: [String] = []
    /// Names of the players the import created.
    public var playersCreated: [String] = []
}

extension Replica {
    /// Imports UDisc scorecards as ordinary ops of this device, in one transaction: for each
    /// round not already held, the course and players it does not know (matched by folded name,
    /// or alias), the round start with the Par row's pars, every score, and a finish (forced when
    /// a hole was not played). The organizer is this device's owner. Importing a file twice adds
    /// nothing (docs/domain.md, "UDisc import and export").
    public func importUDisc(_ scorecards: [UDiscScorecard]) throws -> UDiscImportReport {
        try write { db in
            let reader = ViewReader(db: db)
            guard let owner = try Meta.text(.owner, in: db).flatMap(UUID.init(uuidString:)) else {
                throw UDiscImportError.noOwner
            }
            var report = UDiscImportReport()
            let aliases = try reader.aliases()
            var players: [String: [UUID]] = [:]
            for player in try reader.players() {
                for name in Set(([player.displayName] + (aliases[player.id] ?? [])).map(NameFolding.folded)) {
                    players[name, default: []].append(player.id)
                }
            }
            var courses: [String: UUID] = [:]
            for course in try reader.courses() where !course.deleted {
                courses[NameFolding.folded(course.name)] = courses[NameFolding.folded(course.name)] ?? course.id
            }
            let ownership = try reader.ownership()
            var held = try reader.roundIDs().compactMap { id in
                try reader.round(id).map { try reader.evaluation($0, ownership: ownership, merge: policies.merge) }
            }
            // Oldest first across every file, so imported rounds keep the order they were played in.
            let rounds = scorecards.flatMap(\.rounds).enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
                .map(\.element)
            for round in rounds {
                if held.contains(where: { Self.holds($0, round) }) {
                    report.roundsAlreadyHeld += 1
                    continue
                }
                let courseID: UUID
                if let known = courses[NameFolding.folded(round.courseName)] {
                    courseID = known
                } else {
                    try Validation.name(round.courseName, of: "course")
                    courseID = try append(.courseCreated(name: round.courseName, pars: round.pars), in: db).entityID
                    courses[NameFolding.folded(round.courseName)] = courseID
                    report.coursesCreated.append(round.courseName)
                }
                var participants: [UUID] = []
                for card in round.players {
                    let matches = players[NameFolding.folded(card.name)] ?? []
                    guard matches.count <= 1 else {
                        throw UDiscImportError.ambiguousPlayer(row: card.row, name: card.name, matches: matches.count)
                    }
                    if let id = matches.first {
                        participants.append(id)
                    } else {
                        let id = try append(.playerCreated(displayName: card.name), in: db).entityID
                        players[NameFolding.folded(card.name)] = [id]
                        report.playersCreated.append(card.name)
                        participants.append(id)
                    }
                }
                guard Set(participants).count == participants.count else {
                    throw UDiscImportError.playerTwiceInRound(course: round.course, date: round.date)
                }
                let start = try append(
                    .roundStarted(
                        RoundStart(
                            courseID: courseID, courseName: round.courseName, organizer: .player(owner),
                            participants: participants.map { .player($0) }, pars: round.pars)), in: db)
                try append(.roundImported(roundID: start.entityID, startDate: round.date, endDate: round.endDate), in: db)
                for (card, player) in zip(round.players, participants) {
                    for (index, strokes) in card.strokes.enumerated() {
                        guard let strokes else { continue }
                        try append(
                            .scoreRecorded(
                                ScoreRecord(
                                    roundID: start.entityID, hole: index + 1, player: .player(player), strokes: strokes, supersedes: [],
                                    reportedBy: .player(owner))), in: db)
                    }
                }
                let complete = round.players.allSatisfy { $0.strokes.allSatisfy { $0 != nil } }
                try append(.roundFinished(roundID: start.entityID, force: !complete), in: db)
                held.append(
                    try reader.evaluation(try reader.round(start.entityID)!, ownership: try reader.ownership(), merge: policies.merge))
                report.roundsImported += 1
            }
            return report
        }
    }

    /// Every completed round as UDisc CSV (the newer header), oldest first; a round's course
    /// name `Course · Layout` splits into the two columns again. An imported round carries the
    /// dates it was imported with; the others, their start and finish ops' clocks.
    public func exportUDisc() throws -> String {
        let rounds = try completedRounds().sorted { PlayedCard.chronologically($0.round, $1.round) }
        let imported = try read { db in try ViewReader(db: db).importedDates() }
        let holes = rounds.map { $0.round.holeCount }.max() ?? 18
        var lines = [
            (["PlayerName", "CourseName", "LayoutName", "StartDate", "EndDate", "Total", "+/-", "RoundRating"]
                + (1...holes).map { "Hole\($0)" }).joined(separator: ",")
        ]
        for evaluation in rounds {
            let round = evaluation.round
            let parts = round.courseName.components(separatedBy: " · ")
            let (course, layout) = parts.count > 1 ? (parts[0], parts.dropFirst().joined(separator: " · ")) : (round.courseName, "")
            // Only the device that started the round says where it came from.
            let dates =
                imported[round.id]?[round.startedBy].map { [$0.start, $0.end] }
                ?? [Self.udiscDate(round.startedAt), Self.udiscDate(evaluation.finish!.createdAt)]
            func line(_ name: String, _ total: Int, _ relative: String, _ cells: [String]) -> String {
                ([name, course, layout] + dates + ["\(total)", relative, ""] + cells + Array(repeating: "", count: holes - cells.count))
                    .map(Self.csvField).joined(separator: ",")
            }
            lines.append(line("Par", round.totalPar, "", round.pars.map(String.init)))
            for participant in evaluation.participants {
                let strokes = (1...round.holeCount).map { evaluation.score(player: participant.id, hole: $0).strokes }
                let total = strokes.reduce(0) { $0 + ($1 ?? 0) }
                var par = 0
                for (hole, value) in strokes.enumerated() where value != nil { par += round.pars[hole] }
                lines.append(line(participant.name, total, "\(total - par)", strokes.map { String($0 ?? 0) }))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether `evaluation` is the UDisc `round`: same course name, pars, players (folded names)
    /// and strokes on every hole.
    private static func holds(_ evaluation: RoundEvaluation, _ round: UDiscScorecard.Round) -> Bool {
        guard NameFolding.folded(evaluation.round.courseName) == NameFolding.folded(round.courseName), evaluation.round.pars == round.pars,
            evaluation.participants.count == round.players.count
        else { return false }
        return round.players.allSatisfy { card in
            guard let participant = evaluation.participants.first(where: { NameFolding.folded($0.name) == NameFolding.folded(card.name) })
            else {
                return false
            }
            return card.strokes.enumerated().allSatisfy {
                evaluation.score(player: participant.id, hole: $0.offset + 1).strokes == $0.element
            }
        }
    }

    /// `yyyy-MM-dd HHmm` in UTC, as UDisc writes dates.
    static func udiscDate(_ clock: HLCTimestamp) -> String {
        let text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(clock.physicalMilliseconds) / 1000))
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)).replacingOccurrences(of: ":", with: "")
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
