import Foundation
import HyzerTestSupport
import Testing

/// `standings --watch`: arrows for position changes, the top three marked, and the previous
/// position in each JSON document.
@Suite struct StandingsWatchTests {
    let directory = TemporaryDirectory("standings-watch")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    func prepare() throws -> String {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        for name in ["Ben", "Cat", "Dan"] { _ = try cli.ok("player", "add", name) }
        return try cli.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben,Cat,Dan")
    }

    func stop(_ process: Process) {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
    }

    @Test func arrowsAndTheTopThree() throws {
        let round = try prepare()
        _ = try cli.ok("card", round, "Ann 3, Ben 2, Cat 4, Dan 3")
        let watch = try cli.start(["standings", round, "--watch"])
        let watched = OutputCollector(watch.standardOutput as! Pipe)
        #expect(watched.wait { $0.contains("4     Cat") })
        _ = try cli.ok("card", round, "Ann 2, Ben 5, Cat 2")
        #expect(watched.wait { $0.components(separatedBy: "Morley Field").count == 3 }, "no redraw: \(watched.output)")
        stop(watch)
        let boards = watched.output.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(boards.count == 2)
        #expect(
            boards.first?.split(separator: "\n").dropFirst().joined(separator: "\n") == """
                #     Player  Score  Strokes  Thru  Disputed
                1  ★  Ben        -1        2     1
                2  ★  Ann         E        3     1
                2  ★  Dan         E        3     1
                4     Cat        +1        4     1
                """)
        #expect(
            boards.last?.split(separator: "\n").dropFirst().joined(separator: "\n") == """
                #       Player  Score  Strokes  Thru  Disputed
                1  ★▲1  Ann        -1        5     2
                2  ★▲2  Cat         E        6     2
                2  ★    Dan         E        3     1
                4   ▼3  Ben        +1        7     2
                """)
    }

    @Test func jsonCarriesThePreviousPosition() throws {
        let round = try prepare()
        _ = try cli.ok("card", round, "Ann 3, Ben 2")
        let watch = try cli.start(["standings", round, "--watch", "--json"])
        let watched = OutputCollector(watch.standardOutput as! Pipe)
        #expect(watched.wait { $0.contains("\n") })
        _ = try cli.ok("card", round, "Ann 2, Ben 5")
        #expect(watched.wait { $0.split(separator: "\n").count == 2 }, "no redraw: \(watched.output)")
        stop(watch)
        let documents = watched.output.split(separator: "\n")
        #expect(documents.first?.contains(#""name":"Ben","playerID":"#) == true)
        #expect(documents.first?.contains(#""position":1,"previousPosition":null"#) == true, "\(documents)")
        let second = String(documents.last ?? "")
        #expect(second.contains(#""name":"Ann","playerID""#))
        #expect(second.contains(#""position":1,"previousPosition":2,"relativeToPar":-1,"totalStrokes":5"#), "\(second)")
        #expect(second.contains(#""position":2,"previousPosition":1,"relativeToPar":1,"totalStrokes":7"#), "\(second)")
        #expect(second.contains(#""holesPlayed":0,"name":"Cat","playerID""#) && second.contains(#""previousPosition":null"#))
    }
}
