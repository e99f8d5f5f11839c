import Foundation
import HyzerTestSupport
import Testing

/// docs/rules.md, "Late scores", through the binary: a phone scores a hole offline before the
/// organizer finishes; it reaches the organizer after the finish. It does not count, and every
/// view says so truthfully (written before the finish, reached the finisher after it) with the
/// command that counts it; `resolve --late` counts it.
@Suite struct LateScoreCLITests {
    let directory = TemporaryDirectory("late-score")
    var folder: String { directory.path("shared").path }

    func json(_ cli: BinaryRunner, _ arguments: String...) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try cli.ok(arguments).utf8)) as? [String: Any])
    }

    @Test func aScoreWrittenBeforeTheFinishThatArrivesAfterItIsShownAsLateAndResolveCountsIt() throws {
        let (ann, ben) = (BinaryRunner(store: directory.path("ann")), BinaryRunner(store: directory.path("ben")))
        try ann.ok("init", "--name", "ann-laptop", "--owner", "Ann", quiet: false)
        try ben.ok("init", "--name", "ben-phone", "--owner", "Ben", quiet: false)
        try ann.ok("group", "create", quiet: false)
        try ben.join(ann)
        func syncBoth() throws { for cli in [ann, ben, ann] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        try syncBoth()
        try ann.ok("course", "add", "Tiny", "--pars", "3,3,4")
        let round = try ann.ok("round", "start", "--course", "Tiny", "--players", "Ann,Ben")
        let short = String(round.prefix(8))
        try ann.ok("card", round, "Ann 3, Ben 4")
        try syncBoth()
        // Ben's phone scores hole 2 offline, before the finish.
        let late = try ben.ok("score", round, "--player", "Ben", "--hole", "2", "--strokes", "2")
        let lateShort = String(late.prefix(8))
        try ann.ok("card", round, "Ann 3", "--hole", "2")
        try ann.ok("round", "finish", round, "--force", quiet: false)
        try syncBoth()

        let benDevice = try #require(try json(ben, "whoami", "--json")["replica"] as? String)
        let expectedTable = """
            late scores, not counted: written before the round was finished, they reached the finishing device after it
            Player  Hole  Strokes  Device     Event
            Ben        2        2  ben-phone  \(lateShort)
            count one with `hyzer-peer resolve \(short) --late EVENT` on the organizer's device
            """
        for cli in [ann, ben] {
            #expect(try cli.ok("discrepancies", round) == "no discrepancies\n\n" + expectedTable)
            #expect(try cli.ok("round", "show", round).contains("\n\n" + expectedTable))
            // Standings do not count it: Ben has played hole 1 only.
            let standings = try #require(try json(cli, "standings", round, "--json")["standings"] as? [[String: Any]])
            #expect(standings.first { $0["name"] as? String == "Ben" }?["holesPlayed"] as? Int == 1)
        }
        let reason =
            "the event was written before the round was finished but reached the finishing device after it: a late score, not counted unless the organizer counts it (resolve --late)"
        let document = try json(ann, "discrepancies", round, "--json")
        #expect(document["discrepancies"] as? [Any] != nil && (document["discrepancies"] as? [Any])?.isEmpty == true)
        let listed = try #require(document["late"] as? [[String: Any]])
        #expect(listed.count == 1)
        let entry = try #require(listed.first)
        #expect(entry["eventID"] as? String == late)
        #expect(entry["name"] as? String == "Ben")
        #expect(entry["hole"] as? Int == 2)
        #expect(entry["strokes"] as? Int == 2)
        #expect(entry["deviceID"] as? String == benDevice)
        #expect(entry["reason"] as? String == reason)
        #expect(entry["resolve"] as? String == "hyzer-peer resolve \(short) --late \(lateShort)")
        #expect(Set(entry.keys) == ["createdAt", "deviceID", "eventID", "hole", "name", "playerID", "reason", "resolve", "strokes"])
        #expect(try json(ann, "round", "show", round, "--json")["late"] as? [[String: AnyHashable]] == listed as? [[String: AnyHashable]])
        // verify tells the truth, not "created after the round was finished".
        let verified = try ann.ok("verify")
        #expect(verified.contains("score event \(late): \(reason)"), "\(verified)")
        #expect(!verified.contains("created after the round was finished"))

        // Ben's phone is not the organizer's: it cannot count it.
        let refused = try ben.run("resolve", round, "--late", lateShort)
        #expect(refused.status != 0)
        // The organizer counts it: Ben's 2 on hole 2 now counts, and nothing is listed as late.
        let resolution = try ann.ok("resolve", round, "--late", lateShort)
        #expect(resolution.count == 36 && resolution != late)
        try syncBoth()
        for cli in [ann, ben] {
            #expect(try cli.ok("discrepancies", round) == "no discrepancies")
            let standings = try #require(try json(cli, "standings", round, "--json")["standings"] as? [[String: Any]])
            let bens = try #require(standings.first { $0["name"] as? String == "Ben" })
            #expect(bens["holesPlayed"] as? Int == 2)
            #expect(bens["totalStrokes"] as? Int == 6)
            #expect((try json(cli, "discrepancies", round, "--json")["late"] as? [Any])?.isEmpty == true)
            // The resolution that counts it names it in its supersedes, and that is no supersession it may not make.
            #expect(!(try cli.ok("verify")).contains("supersedes an event it may not"))
        }
    }
}
