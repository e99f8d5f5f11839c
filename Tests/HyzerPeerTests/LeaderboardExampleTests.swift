import Foundation
import HyzerTestSupport
import Testing

/// The leaderboard example (Examples/Leaderboard, docs/embedding.md) run as a user runs it: its
/// `@Observable` model redrawn whenever it changes, on a phone's store linked in the same process
/// to a watch's store over an app's own transport (the phone dials, the watch's sync accepts),
/// so that a score `hyzer-peer` records on the watch reaches the phone's board.
@Suite struct LeaderboardExampleTests {
    let directory = TemporaryDirectory("leaderboard")

    @Test func aScoreOnTheLinkedStoreAppearsOnTheBoard() throws {
        let phone = try BinaryRunner.phone("phone", owner: "Ann", in: directory)
        let watch = try BinaryRunner.phone("watch", owner: "Ben", in: directory)
        try phone.ok("group", "create")
        try watch.join(phone)
        let folder = directory.path("shared").path
        for cli in [watch, phone, watch] { try cli.ok("sync", "--folder", folder) }
        let round = try phone.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben")
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let process = Process()
        process.executableURL = phone.executable.deletingLastPathComponent().appendingPathComponent("leaderboard")
        process.arguments = [phone.store.path, round, "link", watch.store.path]
        let input = Pipe()
        process.standardInput = input
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = stdout
        let output = OutputCollector(stdout)
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        #expect(output.wait { $0.contains("== Morley Field, active") }, "the board was never drawn: \(output.output)")
        #expect(output.wait { $0.contains("peers: ") }, "the link never connected: \(output.output)")
        // The round reaches the watch over the link, then the watch's score comes back over it.
        let score = ["score", round, "--player", "Ben", "--hole", "1", "--strokes", "2"]
        #expect(watch.eventuallyOK(score), "the round never reached the watch")
        #expect(output.wait { $0.contains("1. Ben  -1  (1 holes)") }, "the watch's score never reached the board: \(output.output)")

        input.fileHandleForWriting.write(Data("quit\n".utf8))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

extension BinaryRunner {
    /// Runs `arguments` until they succeed, for up to 20 s; whether they did.
    func eventuallyOK(_ arguments: [String]) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? run(arguments))?.status == 0 { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}
