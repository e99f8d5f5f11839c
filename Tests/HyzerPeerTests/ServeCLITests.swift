import Foundation
import HyzerKit
import HyzerTestSupport
import Testing

/// `serve`, `sync --peer` and `standings --watch` as separate processes on loopback.
@Suite struct ServeCLITests {
    let directory = TemporaryDirectory("serve")

    /// Starts `serve` and returns the process, its output, and the port it printed.
    func serve(_ cli: BinaryRunner, _ extra: [String] = []) throws -> (Process, OutputCollector, Int) {
        let process = try cli.start(["serve", "--listen", "127.0.0.1:0"] + extra)
        let output = OutputCollector(process.standardOutput as! Pipe)
        _ = OutputCollector(process.standardError as! Pipe)
        #expect(output.wait { $0.contains("listening on") }, "serve did not start: \(output.output)")
        let port = Int(output.output.split(separator: ":").last?.split(separator: "\n").first ?? "") ?? 0
        return (process, output, port)
    }

    func interrupt(_ process: Process) -> Int32 {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func liveServersCarryAScoreWrittenByAnotherProcess() throws {
        let (a, b) = (BinaryRunner(store: directory.path("a")), BinaryRunner(store: directory.path("b")))
        _ = try a.ok("init", "--name", "a", "--owner", "Ann", quiet: false)
        _ = try b.ok("init", "--name", "b", "--owner", "Ben", quiet: false)
        _ = try a.ok("group", "create", quiet: false)
        try b.join(a)
        let round = try a.ok("round", "start", "--course", "Morley Field", "--players", "Ann", quiet: false)

        let (serverA, _, portA) = try serve(a)
        let (serverB, _, _) = try serve(b, ["--peer", "127.0.0.1:\(portA)"])
        let replicaB = try Replica.open(at: b.store)
        let arrived = { (try? replicaB.rounds().count) == 1 }
        #expect(OutputCollector.poll(seconds: 20, arrived), "the round never reached b")

        // A score written by a separate process on a reaches b through the two servers.
        let event = try a.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "2", quiet: false)
        #expect(
            OutputCollector.poll(seconds: 20) {
                (try? replicaB.roundView(UUID(uuidString: round)!)?.evaluation.validEvents.contains { $0.id.lowercased == event }) == true
            })
        #expect(interrupt(serverA) == 0)
        #expect(interrupt(serverB) == 0)
    }

    @Test func standingsWatchRedrawsWhenAnotherProcessScores() throws {
        let a = BinaryRunner(store: directory.path("a"))
        _ = try a.ok("init", "--name", "a", "--owner", "Ann", quiet: false)
        let round = try a.ok("round", "start", "--course", "Morley Field", "--players", "Ann", quiet: false)
        let watch = try a.start(["standings", round, "--watch", "--json"])
        let watched = OutputCollector(watch.standardOutput as! Pipe)
        #expect(watched.wait { $0.contains(#""holesPlayed":0"#) })
        _ = try a.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "2", quiet: false)
        #expect(watched.wait { $0.contains(#""formatted":"-1","holesPlayed":1"#) }, "no redraw: \(watched.output)")
        #expect(interrupt(watch) == 0)
    }
}

extension OutputCollector {
    /// Waits up to `seconds` for `condition`.
    static func poll(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }
}
