import Foundation
import HyzerTestSupport
import Testing

/// `stats player`, `stats head-to-head` and `stats course` through the binary: exact JSON and
/// tables over three finished rounds and one that is still running.
@Suite struct StatsCLITests {
    let directory = TemporaryDirectory("stats-cli")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    /// Three finished rounds on Tiny (pars 3, 3, 4) for Ann and Ben, and one running round.
    /// Returns the finished rounds' ids and start times, oldest first.
    func play() throws -> [(id: String, startedAt: Int)] {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        _ = try cli.ok("player", "add", "Ben")
        _ = try cli.ok("course", "add", "Tiny", "--pars", "3,3,4")
        var rounds: [(String, Int)] = []
        for (ann, ben) in [([2, 3, 4], [4, 4, 5]), ([3, 3, 4], [3, 3, 4]), ([2, 3, 4], [3, 2, 4])] {
            let round = try cli.ok("round", "start", "--course", "Tiny", "--players", "Ann,Ben")
            for (name, card) in [("Ann", ann), ("Ben", ben)] {
                for (index, strokes) in card.enumerated() {
                    _ = try cli.ok("score", round, "--player", name, "--hole", "\(index + 1)", "--strokes", "\(strokes)")
                }
            }
            _ = try cli.ok("round", "finish", round)
            let show = try JSONSerialization.jsonObject(with: Data(try cli.ok("round", "show", round, "--json").utf8)) as? [String: Any]
            rounds.append((round, try #require(show?["startedAt"] as? Int)))
        }
        // A round that is not finished counts for nothing.
        let running = try cli.ok("round", "start", "--course", "Tiny", "--players", "Ann,Ben")
        for hole in 1...3 { _ = try cli.ok("score", running, "--player", "Ann", "--hole", "\(hole)", "--strokes", "1") }
        return rounds
    }

    func day(_ milliseconds: Int) -> String {
        String(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000)).prefix(10))
    }

    func id(_ document: String, _ key: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any]
        return try #require((object?["owner"] as? [String: Any])?[key] as? String ?? object?[key] as? String)
    }

    @Test func statsOfAPlayerAPairAndACourse() throws {
        let rounds = try play()
        let ann = try id(try cli.ok("whoami", "--json"), "id")
        let course = try id(try cli.ok("course", "show", "Tiny", "--json"), "id")
        let players = try JSONSerialization.jsonObject(with: Data(try cli.ok("player", "list", "--json").utf8)) as? [[String: Any]]
        let ben = try #require(players?.first { $0["name"] as? String == "Ben" }?["id"] as? String)
        func result(_ index: Int, _ strokes: Int) -> String {
            let relative = strokes - 10
            let formatted = relative == 0 ? "E" : relative > 0 ? "+\(relative)" : "\(relative)"
            return
                #"{"course":"Tiny","courseID":"\#(course)","formatted":"\#(formatted)","relativeToPar":\#(relative),"round":"\#(rounds[index].id)","startedAt":\#(rounds[index].startedAt),"totalStrokes":\#(strokes)}"#
        }
        #expect(
            try cli.ok("stats", "player", "Ann", "--json")
                == #"{"averageRelativeToPar":-0.67,"best":\#(result(0, 9)),"name":"Ann","personalBests":[\#(result(0, 9))],"playerID":"\#(ann)","roundsPlayed":3,"trend":[\#(result(0, 9)),\#(result(1, 10)),\#(result(2, 9))]}"#
        )
        #expect(
            try cli.ok("stats", "player", "Ann") == """
                Ann · 3 rounds · average -0.67 · best -1 (Tiny, \(day(rounds[0].startedAt)))
                trend ▁█▁ (oldest to newest, relative to par; lower is better)

                Course  Best  Strokes  Date        Round
                Tiny      -1        9  \(day(rounds[0].startedAt))  \(rounds[0].id.prefix(8))
                """)

        let versus = try cli.ok("stats", "head-to-head", "Ann", "Ben", "--json")
        #expect(
            versus.hasPrefix(
                #"{"averageStrokeDifference":-1.33,"lastMeetings":[{"course":"Tiny","opponentStrokes":9,"playerStrokes":9,"result":"tie","round":"\#(rounds[2].id)","startedAt":\#(rounds[2].startedAt)}"#
            ), "\(versus)")
        #expect(
            versus.hasSuffix(
                #""losses":0,"opponent":{"name":"Ben","playerID":"\#(ben)"},"player":{"name":"Ann","playerID":"\#(ann)"},"sharedRounds":3,"ties":2,"wins":1}"#
            ), "\(versus)")
        #expect(
            try cli.ok("stats", "head-to-head", "Ann", "Ben") == """
                Ann vs Ben · 3 shared rounds · 1 won, 0 lost, 2 tied · average difference -1.33 strokes

                last meetings
                Date        Course  Ann  Ben  Result  Round
                \(day(rounds[2].startedAt))  Tiny      9    9  tie     \(rounds[2].id.prefix(8))
                \(day(rounds[1].startedAt))  Tiny     10   10  tie     \(rounds[1].id.prefix(8))
                \(day(rounds[0].startedAt))  Tiny      9   13  win     \(rounds[0].id.prefix(8))
                """)

        let hole1 = #"{"averageRelativeToPar":-0.17,"averageStrokes":2.83,"cards":6,"hole":1,"par":3}"#
        let hole3 = #"{"averageRelativeToPar":0.17,"averageStrokes":4.17,"cards":6,"hole":3,"par":4}"#
        #expect(
            try cli.ok("stats", "course", "Tiny", "--json")
                == #"{"cards":6,"course":"Tiny","courseID":"\#(course)","easiest":\#(hole1),"hardest":\#(hole3),"holes":[\#(hole1),{"averageRelativeToPar":0,"averageStrokes":3,"cards":6,"hole":2,"par":3},\#(hole3)],"roundsPlayed":3}"#
        )
        #expect(
            try cli.ok("stats", "course", "Tiny") == """
                Tiny · 3 rounds · 6 cards · hardest hole 3 (+0.17) · easiest hole 1 (-0.17)
                Hole  Par  Average  vs par  Cards
                   1    3     2.83   -0.17      6
                   2    3     3.00    0.00      6
                   3    4     4.17   +0.17      6
                """)
        #expect(try cli.ok("stats", "course", "Morley Field") == "no completed round on Morley Field yet")
        #expect(try cli.ok("stats", "player", "Ben", "--json").contains(#""roundsPlayed":3"#))
    }

    @Test func refusals() throws {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        for (arguments, error) in [
            (["stats", "head-to-head", "Ann", "Ann"], "'Ann' and 'Ann' are the same player; name two different players"),
            (["stats", "player", "Zed"], "no player matches 'Zed'; list them with `hyzer-peer player list`"),
            (["stats", "course", "Nowhere"], "no course matches 'Nowhere'; list them with `hyzer-peer course list`"),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 1)
            #expect(result.stderr == "error: \(error)\n")
            #expect(result.stdout == "")
        }
        #expect(try cli.ok("stats", "player", "Ann") == "Ann has no completed round with a full card yet")
    }
}
