import ArgumentParser
import Foundation
import HyzerKit

/// The `hyzer-peer` command line.
struct HyzerPeer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hyzer-peer",
        abstract: "Offline-first, serverless sync of disc golf scores.",
        discussion: "Every device keeps a full replica in one directory (--store DIR). See README.md and docs/.",
        subcommands: [
            InitCommand.self, WhoamiCommand.self, DeviceCommand.self, PlayerCommand.self, CourseCommand.self,
            RoundCommand.self, ScoreCommand.self, CardCommand.self, CorrectCommand.self, StandingsCommand.self, BreakdownCommand.self,
            DiscrepanciesCommand.self, ResolveCommand.self, HistoryCommand.self, StatsCommand.self, StatusCommand.self,
            VerifyCommand.self, GroupCommand.self, SyncCommand.self, ServeCommand.self, ExportCommand.self, ImportCommand.self,
            BenchCommand.self, DemoCommand.self, SimulateCommand.self,
        ]
    )
}

/// A command's failure that has already been explained on standard error.
struct ReportedFailure: Error {
    let exitCode: Int32
}

@main
enum Main {
    static func main() async {
        do {
            var command = try HyzerPeer.parseAsRoot(globalOptionsMovedLast(Array(CommandLine.arguments.dropFirst())))
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as ReportedFailure {
            exit(failure.exitCode)
        } catch {
            guard let sentence = ErrorSentence.sentence(for: error) else { HyzerPeer.exit(withError: error) }
            Terminal.error("error: \(sentence)")
            exit(1)
        }
    }

    /// `--store DIR` may come before the subcommand, git-style; the subcommands read it.
    static func globalOptionsMovedLast(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--store") {
            leading.append(rest.removeFirst())
            if first == "--store", let value = rest.first {
                leading.append(value)
                rest.removeFirst()
            }
        }
        return Array(rest) + leading
    }
}
