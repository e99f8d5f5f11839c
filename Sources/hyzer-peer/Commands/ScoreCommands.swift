import ArgumentParser
import HyzerDomain
import HyzerEngine
import HyzerKit

struct ScoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Record a score; prints the event id, and the events it corrects when this device had already scored the hole.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String
    @Option(help: "The hole number.") var hole: Int
    @Option(help: "Strokes, 1 to 10.") var strokes: Int

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let round = try await engine.round(matching: round)
        let participant = try await engine.participant(matching: player, in: round)
        let event = try await engine.recordScore(round: round, participant: participant, hole: hole, strokes: strokes)
        let supersedes = try await engine.scoreEvent(event, in: round)?.supersedes ?? []
        print(([event.description] + supersedes.map { "corrects \($0.lowercased)" }).joined(separator: " "))
    }
}

struct CorrectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "correct", abstract: "Correct a score this device recorded; prints the new event id.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The event's id or id prefix.") var event: String
    @Option(help: "Strokes, 1 to 10.") var strokes: Int

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        print(try await engine.correct(try await engine.scoreEvent(matching: event), strokes: strokes))
    }
}

struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Settle a disputed hole, or count a late score (organizer's device only); prints the event id.",
        discussion: """
            Settle a hole with --player, --hole and --strokes; count a late score (one written before the finish \
            that reached the finishing device after it, listed by `discrepancies`) with --late EVENT.
            """)
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String?
    @Option(help: "The hole number.") var hole: Int?
    @Option(help: "Strokes, 1 to 10.") var strokes: Int?
    @Option(help: "Count this late score (its event id or id prefix, as `discrepancies` lists it).") var late: String?

    func validate() throws {
        if late != nil {
            guard player == nil, hole == nil, strokes == nil else {
                throw ValidationError("--late counts a late score as it was written; give it without --player, --hole and --strokes")
            }
        } else if player == nil || hole == nil || strokes == nil {
            throw ValidationError("give --player, --hole and --strokes to settle a hole, or --late EVENT to count a late score")
        }
    }

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let round = try await engine.round(matching: round)
        if let late {
            return print(try await engine.countLateScore(try await engine.lateScore(matching: late, in: round), in: round))
        }
        guard let player, let hole, let strokes else { return }
        let participant = try await engine.participant(matching: player, in: round)
        print(try await engine.resolve(round: round, participant: participant, hole: hole, strokes: strokes))
    }
}

struct CardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card", abstract: "Score a whole hole's card at once, like \"Mike 3, Jake birdie, Sarah two\".",
        discussion: """
            Names match forgivingly (case and accents ignored, unambiguous prefixes, aliases from `player alias`); \
            scores are strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey against the hole's par. \
            Anything ambiguous or unknown refuses the whole card.
            """)
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Argument(help: "The card: NAME SCORE entries separated by commas.") var card: String
    @Option(help: "The hole (default: the next hole nobody has scored).") var hole: Int?

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let recorded = try await engine.recordCard(card, round: try await engine.round(matching: round), hole: hole)
        print("hole \(recorded.hole) · par \(recorded.round.pars[recorded.hole - 1])")
        var table = Table([("Player", .left), ("Strokes", .right), ("Score", .right), ("Event", .left), ("", .left)])
        for line in recorded.lines {
            let relative = line.strokes - line.par
            table.add([
                .init(line.participant.name), .init("\(line.strokes)"),
                .init(ScoreFormatting.formatted(relative), ScoreColour.of(relative)),
                .init(String(line.event.id.lowercased.prefix(8))), .init(line.event.supersedes.isEmpty ? "" : "correction"),
            ])
        }
        print(table.render())
    }
}
