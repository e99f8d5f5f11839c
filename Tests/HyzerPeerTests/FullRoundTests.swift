import Foundation
import HyzerTestSupport
import Testing

/// A whole round through the binary: exact `standings --json` and `breakdown --json`.
@Suite struct FullRoundTests {
    let directory = TemporaryDirectory("full-round")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    /// Runs a command that must succeed and returns its output.

    @Test func scriptedRoundWithCorrectionsTiesGuestsAndUnscoredPlayers() throws {
        let initOutput = try cli.ok("init", "--name", "phone", "--device", "phone", "--owner", "Ann")
        #expect(initOutput.contains("Created replica phone (phone)"))
        let ben = try cli.ok("player", "add", "Ben")
        let cat = try cli.ok("player", "add", "Cat")
        let dan = try cli.ok("player", "add", "Dan")
        let ann = try #require(try JSONSerialization.jsonObject(with: Data(try cli.ok("whoami", "--json").utf8)) as? [String: Any])
        let annID = try #require((ann["owner"] as? [String: Any])?["id"] as? String)
        let round = try cli.ok(
            "round", "start", "--course", "Maple Hill", "--players", "Ann,Ben,Cat,Dan", "--guest", "Gus", "--guest", "Hal")
        let show = try #require(
            try JSONSerialization.jsonObject(with: Data(try cli.ok("round", "show", "latest", "--json").utf8)) as? [String: Any])
        let members = try #require(show["participants"] as? [[String: Any]])
        let gus = try #require(members.first { $0["name"] as? String == "Gus" }?["id"] as? String)
        let hal = try #require(members.first { $0["name"] as? String == "Hal" }?["id"] as? String)
        #expect(gus.hasPrefix("guest:"))

        let card: [(String, [Int])] = [("Ann", [3, 3, 2]), ("Ben", [2, 3, 3]), ("Cat", [3, 5, 3]), ("Gus", [3, 2, 4])]
        var catHole2 = ""
        for (player, strokes) in card {
            for (index, value) in strokes.enumerated() {
                let event = try cli.ok(
                    "score", String(round.prefix(8)), "--player", player, "--hole", "\(index + 1)", "--strokes", "\(value)")
                if player == "Cat", index == 1 { catHole2 = event }
            }
        }
        _ = try cli.ok("correct", String(catHole2.prefix(10)), "--strokes", "4")

        func row(_ position: Int, _ id: String, _ name: String, _ strokes: Int, _ played: Int, _ relative: Int, _ formatted: String)
            -> String
        {
            #"{"disputedHoles":0,"formatted":"\#(formatted)","holesPlayed":\#(played),"name":"\#(name)","playerID":"\#(id)","position":\#(position),"relativeToPar":\#(relative),"totalStrokes":\#(strokes)}"#
        }
        let expectedStandings =
            #"{"course":"Maple Hill","round":"\#(round)","standings":["#
            + [
                row(1, annID, "Ann", 8, 3, -1, "-1"), row(1, ben, "Ben", 8, 3, -1, "-1"), row(3, gus, "Gus", 9, 3, 0, "E"),
                row(4, cat, "Cat", 10, 3, 1, "+1"), row(5, dan, "Dan", 0, 0, 0, "E"), row(5, hal, "Hal", 0, 0, 0, "E"),
            ].joined(separator: ",") + #"],"status":"active"}"#
        #expect(try cli.ok("standings", round, "--json") == expectedStandings)

        let pars = [3, 3, 3, 4, 3, 3, 3, 3, 4, 3, 3, 3, 4, 3, 3, 4, 3, 3]
        var holes: [String] = []
        for (index, par) in pars.enumerated() {
            let hole = index + 1
            if hole <= 3 {
                let strokes = [3, 4, 3][index]
                let relative = strokes - par
                let formatted = relative == 0 ? "E" : (relative > 0 ? "+\(relative)" : "\(relative)")
                let tier = relative < 0 ? "underPar" : relative == 0 ? "atPar" : relative == 1 ? "overPar" : "wayOver"
                holes.append(
                    #"{"disputed":false,"formatted":"\#(formatted)","hole":\#(hole),"par":\#(par),"relativeToPar":\#(relative),"strokes":\#(strokes),"tier":"\#(tier)"}"#
                )
            } else {
                holes.append(
                    #"{"disputed":false,"formatted":null,"hole":\#(hole),"par":\#(par),"relativeToPar":null,"strokes":null,"tier":null}"#)
            }
        }
        let expectedBreakdown =
            #"{"formatted":"+1","holes":["# + holes.joined(separator: ",")
            + #"],"name":"Cat","playerID":"\#(cat)","relativeToPar":1,"round":"\#(round)","totalPar":9,"totalStrokes":10}"#
        #expect(try cli.ok("breakdown", "latest", "--player", "Cat", "--json") == expectedBreakdown)

        // Human output: an aligned table, no colour when NO_COLOR is set.
        let table = try cli.ok("standings", "latest")
        #expect(table.split(separator: "\n").dropFirst().first == "#  Player  Score  Strokes  Thru  Disputed")
        #expect(!table.contains("\u{1B}["))

        // Finishing needs every score unless forced; then history lists the round.
        let refused = try cli.run("round", "finish", "latest")
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: round \(round) has 96 missing scores and 0 disputed holes; score and resolve them, or finish with --force\n")
        _ = try cli.ok("round", "finish", "latest", "--force")
        let history = try cli.ok("history", "--json")
        #expect(history.contains(#""winners":["Ann","Ben"]"#), "\(history)")
        #expect(try cli.ok("verify").hasSuffix("intact"))
    }
}
