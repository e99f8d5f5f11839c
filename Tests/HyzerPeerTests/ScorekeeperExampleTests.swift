import Foundation
import HyzerTestSupport
import Testing

/// The worked example (Examples/Scorekeeper, docs/embedding.md) run as a user runs it: typed
/// commands on its standard input, the standings it prints as they change, and two of them
/// keeping one round between them over TCP, the second joining with the first's invitation.
@Suite struct ScorekeeperExampleTests {
    let directory = TemporaryDirectory("scorekeeper")

    /// One running scorekeeper: lines go to its standard input, its output is collected.
    final class Scorekeeper {
        let process = Process()
        let input = Pipe()
        let output: OutputCollector

        init(store: URL, name: String) throws {
            let folder = BinaryRunner(store: store).executable.deletingLastPathComponent()
            process.executableURL = folder.appendingPathComponent("scorekeeper")
            process.arguments = [store.path, name]
            process.standardInput = input
            let stdout = Pipe()
            process.standardOutput = stdout
            process.standardError = stdout
            output = OutputCollector(stdout)
            try process.run()
        }

        func type(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        /// Waits (bounded) until the output holds `text`.
        func shows(_ text: String) -> Bool { output.wait(until: { $0.contains(text) }) }

        func quit() -> Int32 {
            type("quit")
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    @Test func itKeepsARoundAndShowsTheStandingsAsTheyChange() throws {
        let ann = try Scorekeeper(store: directory.path("ann"), name: "Ann")
        ann.type(#"start "Morley Field" Ben"#)
        #expect(ann.shows("round "))
        ann.type("score 1 Ben 3")
        #expect(ann.shows("1. Ben 3 (1 holes)"), "\(ann.output.output)")
        ann.type("score 1 Nobody 3")
        #expect(ann.shows("no one named Nobody plays this round"))
        #expect(ann.quit() == 0)
    }

    @Test func twoScorekeepersKeepOneRoundBetweenThem() throws {
        let laptop = try Scorekeeper(store: directory.path("laptop"), name: "Ann")
        laptop.type("group")
        #expect(laptop.shows("group "))
        laptop.type("invite")
        #expect(laptop.shows("hyzer3-"), "\(laptop.output.output)")
        let token = try #require(laptop.output.output.split(separator: "\n").first { $0.hasPrefix("hyzer3-") })
        laptop.type("listen 127.0.0.1:0")
        var port: Substring?
        for _ in 0..<100 where port == nil {
            laptop.type("status")
            Thread.sleep(forTimeInterval: 0.2)
            port = laptop.output.output.split(separator: "\n").last { $0.contains("listening on 127.0.0.1:") }?
                .split(separator: ":").dropFirst().first?.prefix { $0.isNumber }
        }

        let phone = try Scorekeeper(store: directory.path("phone"), name: "Ben")
        phone.type("join \(token)")
        #expect(phone.shows("at the next sync"))
        phone.type("peer 127.0.0.1:\(try #require(port))")
        laptop.type(#"start "Morley Field" Ben"#)
        let cli = BinaryRunner(store: directory.path("phone"))
        #expect(
            OutputCollector.poll(seconds: 30) { (try? cli.run("round", "list"))?.stdout.contains("Morley Field") == true },
            "the laptop's round never reached the phone: \(phone.output.output)")
        #expect(phone.quit() == 0)
        #expect(laptop.quit() == 0)
    }
}
