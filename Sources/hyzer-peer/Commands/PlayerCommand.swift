import ArgumentParser
import HyzerEngine
import HyzerKit

struct PlayerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "player", abstract: "Registered players.", subcommands: [Add.self, List.self, Rename.self, Alias.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a player; prints its id.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var name: String

        func run() async throws {
            print(try await storeOptions.openEngine().addPlayer(named: name))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Registered players by name.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let entries = try await storeOptions.openEngine().playerDocuments()
            if output.json { return try JSONOutput.print(entries) }
            var table = Table([("Player", .left), ("Id", .left), ("Aliases", .left)])
            for entry in entries { table.add(entry.name, entry.id.description, entry.aliases.joined(separator: ", ")) }
            print(table.render())
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a player's display name.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The player's id, id prefix or name.") var player: String
        @Argument(help: "The new name.") var name: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.renamePlayer(try await engine.player(matching: player), to: name)
        }
    }

    struct Alias: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Another name `card` accepts for a player (a nickname).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The player's id, id prefix or name.") var player: String
        @Argument(help: "The alias.") var alias: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.addAlias(alias, for: try await engine.player(matching: player))
        }
    }
}
