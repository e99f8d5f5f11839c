import ArgumentParser
import HyzerKit

struct ScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Record a score; prints the event id, and the events it corrects when this device had already scored the hole.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String
    @Option(help: "The hole number.") var hole: Int
    @Option(help: "Strokes, 1 to 10.") var strokes: Int

    func run() throws {
        let event = try storeOptions.open().recordScore(round: round, player: player, hole: hole, strokes: strokes)
        print(([event.id.lowercased] + event.supersedes.map { "corrects \($0.lowercased)" }).joined(separator: " "))
    }
}

struct CorrectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "correct", abstract: "Correct a score this device recorded; prints the new event id.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The event's id or id prefix.") var event: String
    @Option(help: "Strokes, 1 to 10.") var strokes: Int

    func run() throws {
        print(try storeOptions.open().correct(event: event, strokes: strokes).id.lowercased)
    }
}

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Settle a disputed hole (organizer's device only); prints the event id.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "The round's id, id prefix, or latest.") var round: String
    @Option(help: "The participant's id, id prefix or name.") var player: String
    @Option(help: "The hole number.") var hole: Int
    @Option(help: "Strokes, 1 to 10.") var strokes: Int

    func run() throws {
        print(try storeOptions.open().resolve(round: round, player: player, hole: hole, strokes: strokes).id.lowercased)
    }
}
