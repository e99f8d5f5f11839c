import Foundation
import HyzerTestSupport
import Testing

/// `card` and `player alias` through the binary: a whole hole in one command, forgiving names,
/// and refusals that write nothing.
@Suite struct CardCLITests {
    let directory = TemporaryDirectory("card-cli")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    /// Mike Smith (owner), Jake, Sarah Lee and Sam with the guest Zoë on Morley Field.
    func prepare() throws -> String {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Mike Smith")
        for name in ["Jake", "Sarah Lee", "Sam"] { _ = try cli.ok("player", "add", name) }
        return try cli.ok("round", "start", "--course", "Morley Field", "--players", "Mike Smith,Jake,Sarah Lee,Sam", "--guest", "Zoë")
    }

    func events(_ output: String) -> [String] {
        output.split(separator: "\n").dropFirst(2).map {
            String($0.split(separator: " ").dropFirst().first { $0.count == 8 && $0.allSatisfy(\.isHexDigit) } ?? "")
        }
    }

    @Test func aWholeCardInOneCommand() throws {
        let round = try prepare()
        let first = try cli.ok("card", round, "mike 3, JAKE four, sarah birdie, sam par, zoe double bogey")
        let ids = events(first)
        #expect(
            first == """
                hole 1 · par 3
                Player      Strokes  Score  Event
                Mike Smith        3      E  \(ids[0])
                Jake              4     +1  \(ids[1])
                Sarah Lee         2     -1  \(ids[2])
                Sam               3      E  \(ids[3])
                Zoë               5     +2  \(ids[4])
                """)
        // The next card goes to the next hole nobody has scored; prefixes of any word match.
        let second = try cli.ok("card", round, "Mike 3, Jake 4, Lee 2, Sam ace")
        #expect(second.hasPrefix("hole 2 · par 3\n"))
        // An alias names a player; re-entering a hole on this device corrects it.
        #expect(try cli.ok("player", "alias", "Mike Smith", "Mikey") == "")
        #expect(try cli.ok("player", "alias", "Mike Smith", "mikey") == "", "an alias the player already has changes nothing")
        #expect(try cli.ok("player", "list", "--json").contains(#""aliases":["Mikey"],"id":"#))
        let corrected = try cli.ok("card", round, "Mikey 4", "--hole", "2")
        #expect(
            corrected
                == "hole 2 · par 3\nPlayer      Strokes  Score  Event\nMike Smith        4     +1  \(events(corrected)[0])  correction")
        let breakdown = try cli.ok("breakdown", round, "--player", "Mike Smith", "--json")
        #expect(breakdown.contains(#""hole":2,"par":3,"relativeToPar":1,"strokes":4"#))
        #expect(try cli.ok("discrepancies", round) == "no discrepancies")
        let standings = try cli.ok("standings", round)
        #expect(standings.hasSuffix("4  Zoë            +2        5     1"), "\(standings)")
    }

    @Test func anythingAmbiguousOrUnknownRefusesTheWholeCard() throws {
        let round = try prepare()
        _ = try cli.ok("player", "alias", "Jake", "JJ")
        let short = String(round.prefix(8))
        let before = try cli.digest()
        for (arguments, error) in [
            (["card", round, "Mike 3, Sa 2"], "'Sa' could be any of Sarah Lee, Sam; write more of the name"),
            (
                ["card", round, "Mike 3, Bob 4"],
                "'Bob' matches no participant of round \(short); the participants are listed by `hyzer-peer round show \(short)`"
            ),
            (["card", round, "Mike 3, Smith 4"], "Mike Smith is on the card twice ('Mike 3' and 'Smith 4'); give each player once"),
            (
                ["card", round, "Mike 3, Jake tree"],
                "'tree' in 'Jake tree' is not a score; use strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey"
            ),
            (["card", round, "Mike 3, Jake 11"], "'Jake 11' is 11 strokes on hole 1 (par 3); a hole's score is 1 to 10 strokes"),
            (["card", round, "Mike 3", "--hole", "19"], "hole 19 does not exist: this course has holes 1 to 18"),
            (["card", round, ""], "the card is empty; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
            (["player", "alias", "Sam", "jj"], "'jj' already names Jake; choose an alias nobody else answers to"),
            (["player", "alias", "Sam", "Jake"], "'Jake' already names Jake; choose an alias nobody else answers to"),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == "error: \(error)\n")
            #expect(result.stdout == "")
            #expect(try cli.digest() == before, "\(arguments) changed the store")
        }
        // After a shotgun start on hole 18 the next card wraps around to hole 1.
        _ = try cli.ok("card", round, "JJ 3", "--hole", "18")
        #expect(try cli.ok("card", round, "JJ 3").hasPrefix("hole 1 · par 3\n"))
        _ = try cli.ok("round", "finish", round, "--force")
        let finished = try cli.run("card", round, "Mike 3")
        #expect(
            finished.stderr
                == "error: round \(round) is completed; scores can no longer change (the organizer may still resolve discrepancies)\n")
    }
}
