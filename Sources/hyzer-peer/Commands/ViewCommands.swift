import ArgumentParser
import Foundation
import HyzerDomain
import HyzerEngine
import HyzerKit

struct StandingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "standings", abstract: "A round's leaderboard.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Flag(help: "Redraw whenever new ops land in the store (from any process), until interrupted.") var watch = false

    /// A `standings --watch --json` document: each entry also carries its position in the
    /// previous document (`null` in the first, and for a participant who had not scored then).
    struct WatchDocument: Encodable {
        struct Entry: Encodable {
            let entry: StandingsEntry
            let previousPosition: Int?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(entry.disputedHoles, forKey: .disputedHoles)
                try container.encode(entry.formatted, forKey: .formatted)
                try container.encode(entry.holesPlayed, forKey: .holesPlayed)
                try container.encode(entry.name, forKey: .name)
                try container.encode(entry.playerID, forKey: .playerID)
                try container.encode(entry.position, forKey: .position)
                try container.encode(previousPosition, forKey: .previousPosition)
                try container.encode(entry.relativeToPar, forKey: .relativeToPar)
                try container.encode(entry.totalStrokes, forKey: .totalStrokes)
            }

            private enum CodingKeys: String, CodingKey {
                case disputedHoles, formatted, holesPlayed, name, playerID, position, previousPosition, relativeToPar, totalStrokes
            }
        }

        let round: String
        let course: String
        let status: String
        let standings: [Entry]

        init(_ view: RoundView, previous: [ParticipantID: Int]?) {
            round = view.round.id.lowercased
            course = view.round.courseName
            status = view.evaluation.status.rawValue
            standings = view.evaluation.standings.map { Entry(entry: $0, previousPosition: previous?[$0.playerID]) }
        }
    }

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let id = try await engine.round(matching: round)
        guard watch else {
            try await show(engine, id, previous: nil, clear: false)
            return
        }
        let changes = try await engine.changes()
        let stopSwitch = StopSwitch()
        let signals = SignalWatch(SIGINT, SIGTERM) { _ in stopSwitch.stop() }
        defer { signals.stop() }
        let task = Task {
            var previous = try await show(engine, id, previous: nil, clear: Terminal.isInteractive)
            for await _ in changes { previous = try await show(engine, id, previous: previous, clear: Terminal.isInteractive) }
        }
        stopSwitch.run(task)
        do {
            try await task.value
        } catch is CancellationError {
        }
    }

    /// Prints the standings once; on a terminal, redraws in place. When watching, `previous` holds
    /// the positions last printed (`nil` the first time). Returns the positions of scored participants printed.
    @discardableResult
    private func show(
        _ engine: HyzerEngine, _ id: RoundID, previous: [ParticipantID: Int]?, clear: Bool
    ) async throws -> [ParticipantID: Int] {
        guard let view = try await engine.roundView(id) else { throw ReplicaError.unknown(kind: "round", text: round) }
        // Only a scored participant has a position worth moving from.
        let positions = Dictionary(
            view.evaluation.standings.filter { $0.holesPlayed > 0 }.map { ($0.playerID, $0.position) },
            uniquingKeysWith: { first, _ in first })
        if output.json {
            if watch {
                try JSONOutput.print(WatchDocument(view, previous: previous))
            } else {
                try JSONOutput.print(StandingsDocument(view))
            }
            return positions
        }
        Terminal.line(
            (clear ? "\u{1B}[H\u{1B}[2J" : "") + Self.render(view, previous: watch ? previous ?? [:] : nil) + (watch && !clear ? "\n" : ""))
        return positions
    }

    /// The leaderboard table. With `previous` (when watching), a column marks the top three with
    /// `★` and shows each move since the last redraw: `▲n` up, `▼n` down.
    static func render(_ view: RoundView, previous: [ParticipantID: Int]? = nil) -> String {
        let holes = view.round.holeCount
        var columns: [(String, Table.Alignment)] = [
            ("#", .right), ("Player", .left), ("Score", .right), ("Strokes", .right), ("Thru", .right), ("Disputed", .right),
        ]
        if previous != nil { columns.insert(("", .left), at: 1) }
        var table = Table(columns)
        for entry in view.evaluation.standings {
            var cells: [Table.Cell] = [
                .init("\(entry.position)"), .init(entry.name),
                .init(entry.formatted, entry.holesPlayed > 0 ? ScoreColour.total(entry.relativeToPar) : nil),
                .init("\(entry.totalStrokes)"), .init(entry.holesPlayed == holes ? "F" : "\(entry.holesPlayed)"),
                .init(entry.disputedHoles > 0 ? "\(entry.disputedHoles)" : "", .amber),
            ]
            if let previous {
                cells.insert(.init(Self.movement(entry, previous[entry.playerID]), nil), at: 1)
            }
            table.add(cells)
        }
        return "\(view.round.courseName) · round \(view.round.id.lowercased.prefix(8)) · \(view.evaluation.status.rawValue)\n"
            + table.render()
    }

    /// `★` for the top three (once they have played a hole), then the move since `previous`.
    static func movement(_ entry: StandingsEntry, _ previous: Int?) -> String {
        let top = entry.position <= 3 && entry.holesPlayed > 0 ? "★" : " "
        guard let previous, previous != entry.position else { return top }
        return top + (previous > entry.position ? "▲\(previous - entry.position)" : "▼\(entry.position - previous)")
    }
}

struct BreakdownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "breakdown", abstract: "A player's hole-by-hole scores.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let round = try await engine.round(matching: round)
        guard let view = try await engine.roundView(round) else { throw ReplicaError.unknown(kind: "round", text: self.round) }
        let participant = try await engine.participant(matching: player, in: round)
        let breakdown = view.evaluation.breakdown(player: participant)!
        if output.json { return try JSONOutput.print(breakdown) }
        print(Self.render(breakdown))
    }

    static func render(_ breakdown: Breakdown) -> String {
        var table = Table([("Hole", .right), ("Par", .right), ("Strokes", .right), ("Score", .right), ("", .left)])
        for hole in breakdown.holes {
            table.add([
                .init("\(hole.hole)"), .init("\(hole.par)"), .init(hole.strokes.map(String.init) ?? "·"),
                .init(hole.formatted ?? "", hole.relativeToPar.map(ScoreColour.of)), .init(hole.disputed ? "disputed" : "", .amber),
            ])
        }
        table.add([
            .init("Total"), .init("\(breakdown.totalPar)"), .init("\(breakdown.totalStrokes)"),
            .init(breakdown.formatted, ScoreColour.total(breakdown.relativeToPar)), .init(""),
        ])
        return "\(breakdown.name)\n" + table.render()
    }
}

struct DiscrepanciesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discrepancies", abstract: "Holes scored differently by different devices.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        guard let view = try await engine.roundView(try await engine.round(matching: round)) else {
            throw ReplicaError.unknown(kind: "round", text: round)
        }
        let discrepancies = view.evaluation.discrepancies
        if output.json { return try JSONOutput.print(DiscrepanciesDocument(view)) }
        let late = LateScoreDocument.all(view)
        guard !discrepancies.isEmpty || !late.isEmpty else { return print("no discrepancies") }
        let devices = Dictionary(try await engine.devices().map { ($0.id.hex, $0.name) }, uniquingKeysWith: { first, _ in first })
        if discrepancies.isEmpty {
            print("no discrepancies")
        } else {
            var table = Table([("Player", .left), ("Hole", .right), ("Strokes", .right), ("Device", .left), ("Event", .left)])
            for discrepancy in discrepancies {
                for leaf in discrepancy.leaves {
                    table.add(
                        discrepancy.name, "\(discrepancy.hole)", "\(leaf.strokes)",
                        devices[leaf.deviceID.hex] ?? String(leaf.deviceID.hex.prefix(12)), String(leaf.eventID.description.prefix(8)))
                }
            }
            print(table.render())
            print(
                "settle each with `hyzer-peer resolve \(view.round.id.lowercased.prefix(8)) --player P --hole N --strokes S` on the organizer's device"
            )
        }
        guard !late.isEmpty else { return }
        print("\n" + Self.renderLate(late, round: view.round.id.lowercased, devices: devices))
    }

    /// The late scores: a table, what happened, and how the organizer counts one.
    static func renderLate(_ late: [LateScoreDocument], round: String, devices: [String: String]) -> String {
        var table = Table([("Player", .left), ("Hole", .right), ("Strokes", .right), ("Device", .left), ("Event", .left)])
        for score in late {
            table.add(
                score.name, "\(score.hole)", "\(score.strokes)", devices[score.deviceID.hex] ?? String(score.deviceID.hex.prefix(12)),
                String(score.eventID.description.prefix(8)))
        }
        return "late scores, not counted: written before the round was finished, they reached the finishing device after it\n"
            + table.render() + "\n"
            + "count one with `hyzer-peer resolve \(round.prefix(8)) --late EVENT` on the organizer's device"
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Completed rounds, newest first.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Include each round's final standings.") var standings = false

    func run() async throws {
        let entries = try await storeOptions.openEngine().history(includingStandings: standings)
        if output.json { return try JSONOutput.print(entries) }
        var table = Table([("Finished", .left), ("Course", .left), ("Players", .right), ("Winner", .left), ("Round", .left)])
        for entry in entries {
            table.add(
                DateText.day(entry.finishedAt), entry.course, "\(entry.players)", entry.winners.joined(separator: ", "),
                String(entry.round.description.prefix(8)))
        }
        print(table.render())
        if standings {
            for entry in entries {
                var board = Table([("#", .right), ("Player", .left), ("Score", .right), ("Strokes", .right)])
                for row in entry.standings ?? [] { board.add("\(row.position)", row.name, row.formatted, "\(row.totalStrokes)") }
                print("\n\(entry.course) · \(DateText.day(entry.finishedAt))\n" + board.render())
            }
        }
    }
}
