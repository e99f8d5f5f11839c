import ArgumentParser
import Foundation
import HyzerDomain
import HyzerKit

struct StandingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "standings", abstract: "A round's leaderboard.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Flag(help: "Redraw whenever new ops land in the store (from any process), until interrupted.") var watch = false

    func run() async throws {
        let replica = try storeOptions.open()
        let id = try replica.resolveRound(round)
        guard watch else { return try show(replica, id, clear: false) }
        let monitor = try replica.changeMonitor()
        let task = Task {
            var last: Int?
            while !Task.isCancelled {
                let version = try monitor.version()
                if version != last {
                    last = version
                    try show(replica, id, clear: Terminal.isInteractive)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let signals = SignalWatch(SIGINT, SIGTERM) { task.cancel() }
        defer { signals.stop() }
        do {
            try await task.value
        } catch is CancellationError {
        }
    }

    /// Prints the standings once; on a terminal, redraws in place.
    private func show(_ replica: Replica, _ id: UUID, clear: Bool) throws {
        guard let view = try replica.roundView(id) else { throw ReplicaError.unknown(kind: "round", text: round) }
        if output.json { return try JSONOutput.print(StandingsDocument(view)) }
        Terminal.line((clear ? "\u{1B}[H\u{1B}[2J" : "") + Self.render(view) + (watch && !clear ? "\n" : ""))
    }

    static func render(_ view: RoundView) -> String {
        let holes = view.round.holeCount
        var table = Table([("#", .right), ("Player", .left), ("Score", .right), ("Strokes", .right), ("Thru", .right), ("Disputed", .right)])
        for entry in view.evaluation.standings {
            table.add([
                .init("\(entry.position)"), .init(entry.name), .init(entry.formatted, entry.holesPlayed > 0 ? ScoreColour.of(entry.relativeToPar) : nil),
                .init("\(entry.totalStrokes)"), .init(entry.holesPlayed == holes ? "F" : "\(entry.holesPlayed)"),
                .init(entry.disputedHoles > 0 ? "\(entry.disputedHoles)" : "", .amber),
            ])
        }
        return "\(view.round.courseName) · round \(view.round.id.lowercased.prefix(8)) · \(view.evaluation.status.rawValue)\n" + table.render()
    }
}

struct BreakdownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "breakdown", abstract: "A player's hole-by-hole scores.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String

    func run() throws {
        let replica = try storeOptions.open()
        let view = try replica.roundView(matching: round)
        let participant = try replica.resolveParticipant(player, in: view.round)
        let breakdown = view.evaluation.breakdown(player: participant.id)!
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
            .init(breakdown.formatted, ScoreColour.of(breakdown.relativeToPar)), .init(""),
        ])
        return "\(breakdown.name)\n" + table.render()
    }
}

struct DiscrepanciesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "discrepancies", abstract: "Holes scored differently by different devices.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String

    func run() throws {
        let replica = try storeOptions.open()
        let view = try replica.roundView(matching: round)
        let discrepancies = view.evaluation.discrepancies
        if output.json { return try JSONOutput.print(DiscrepanciesDocument(view)) }
        guard !discrepancies.isEmpty else { return print("no discrepancies") }
        let devices = Dictionary(try replica.devices().map { ($0.id.hex, $0.name) }, uniquingKeysWith: { first, _ in first })
        var table = Table([("Player", .left), ("Hole", .right), ("Strokes", .right), ("Device", .left), ("Event", .left)])
        for discrepancy in discrepancies {
            for leaf in discrepancy.leaves {
                table.add(discrepancy.name, "\(discrepancy.hole)", "\(leaf.strokes)", devices[leaf.deviceID] ?? String(leaf.deviceID.prefix(12)), String(leaf.eventID.prefix(8)))
            }
        }
        print(table.render())
        print("settle each with `hyzer-peer resolve \(view.round.id.lowercased.prefix(8)) --player P --hole N --strokes S` on the organizer's device")
    }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Completed rounds, newest first.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Include each round's final standings.") var standings = false

    func run() throws {
        let entries = try storeOptions.open().history(includingStandings: standings)
        if output.json { return try JSONOutput.print(entries) }
        var table = Table([("Finished", .left), ("Course", .left), ("Players", .right), ("Winner", .left), ("Round", .left)])
        for entry in entries {
            table.add(DateText.day(entry.finishedAt), entry.course, "\(entry.players)", entry.winners.joined(separator: ", "), String(entry.round.prefix(8)))
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
