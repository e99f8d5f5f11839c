import Foundation
import HyzerKit
import HyzerTestSupport
import Testing

/// A store whose writer is killed at any instant reopens, verifies, and keeps every op that a
/// command reported as written.
@Suite struct CrashTests {
    let directory = TemporaryDirectory("crash")

    @Test func killedWritersLoseNothingThatWasReported() throws {
        let cli = BinaryRunner(store: directory.path("phone"))
        #expect(try cli.run("init", "--name", "phone", "--owner", "Ann").status == 0)
        let round = try cli.run("round", "start", "--course", "Morley Field", "--players", "Ann").output

        var reported: [String] = []
        var killed = 0
        for attempt in 0..<40 {
            let process = try cli.start([
                "score", round, "--player", "Ann", "--hole", "\(attempt % 18 + 1)", "--strokes", "\(attempt % 5 + 2)",
            ])
            // Kill at a spread of instants: before start-up ends, mid-transaction, after commit.
            usleep(useconds_t((attempt * 7919) % 60_000))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            let output = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            // `ID` or, for a hole this device had scored already, `ID corrects OLD`.
            let printed = String(String(decoding: output, as: UTF8.self).prefix { !$0.isWhitespace })
            if process.terminationReason == .exit, process.terminationStatus == 0 { reported.append(printed) }
        }
        #expect(killed > 0, "no writer was killed: the test proved nothing")

        let verify = try cli.run("verify")
        #expect(verify.status == 0, "\(verify)")
        let replica = try Replica.open(at: cli.store)
        let report = try replica.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        let held = Set(try #require(try replica.roundView(try replica.resolveRound(round))).evaluation.validEvents.map { $0.id.lowercased })
        for event in reported { #expect(held.contains(event), "event \(event) was reported written but is lost") }
    }
}
