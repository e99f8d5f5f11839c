import ArgumentParser
import Foundation
import HyzerEngine
import HyzerKit

/// `--store DIR` (env `HYZER_STORE`, default `~/.hyzer`): the replica directory.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The replica directory (env HYZER_STORE, default ~/.hyzer).", valueName: "DIR"))
    var store: String?

    var directory: URL {
        if let store { return URL(fileURLWithPath: store) }
        if let fromEnvironment = ProcessInfo.processInfo.environment["HYZER_STORE"], !fromEnvironment.isEmpty {
            return URL(fileURLWithPath: fromEnvironment)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".hyzer")
    }

    /// The replica's engine: every command that changes the store or syncs runs through it.
    func openEngine() async throws -> HyzerEngine {
        try await HyzerEngine.open(at: directory)
    }

    /// The replica itself, for the web pages of `serve --http`, which `WebServer` reads from a
    /// replica (docs/embedding.md, "The command line").
    func open() throws -> Replica {
        try Replica.open(at: directory)
    }
}

/// `--json`: print exactly one JSON document instead of tables.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document on standard output.")
    var json = false
}
