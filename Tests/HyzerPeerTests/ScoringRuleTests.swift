import Foundation
import HyzerTestSupport
import Testing

/// The scoring rules a player meets at the command line: re-entering a score on the same device
/// corrects it, and totals are coloured in three tiers while holes keep four.
@Suite struct ScoringRuleTests {
    let directory = TemporaryDirectory("scoring-rules")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    @Test func scoringTheSameHoleTwiceOnOneDeviceIsACorrection() throws {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        let round = try cli.ok("round", "start", "--course", "Morley Field", "--players", "Ann")
        let first = try cli.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "3")
        let second = try cli.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "5")
        #expect(second.hasSuffix(" corrects \(first)"), "\(second)")
        let secondID = String(second.prefix(36))
        #expect(try cli.ok("discrepancies", round) == "no discrepancies")
        // A third entry corrects the second, not the first (which is no longer current).
        #expect(try cli.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "4").hasSuffix(" corrects \(secondID)"))
        let breakdown = try cli.ok("breakdown", round, "--player", "Ann", "--json")
        #expect(breakdown.contains(#"{"disputed":false,"formatted":"+1","hole":1,"par":3,"relativeToPar":1,"strokes":4,"tier":"overPar"}"#))
        // The organizer can still finish once every hole is scored: nothing is left to resolve.
        for hole in 2...18 { _ = try cli.ok("score", round, "--player", "Ann", "--hole", "\(hole)", "--strokes", "3") }
        #expect(try cli.ok("round", "finish", round) == "finished round \(round)")
    }

    @Test func totalsAreColouredInThreeTiersAndHolesInFour() throws {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        let round = try cli.ok("round", "start", "--course", "Morley Field", "--players", "Ann")
        _ = try cli.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "5")
        let colour = ["NO_COLOR": "", "CLICOLOR_FORCE": "1"]
        let standings = try cli.ok("standings", round, environment: colour).split(separator: "\n")
        // +2 over one hole: the total is amber (over par), not red.
        #expect(standings.last == "1  Ann     \u{1B}[33m   +2\u{1B}[0m        5     1", "\(standings)")
        let breakdown = try cli.ok("breakdown", round, "--player", "Ann", environment: colour).split(separator: "\n")
        #expect(breakdown[2].contains("\u{1B}[31m   +2\u{1B}[0m"), "a double bogey hole stays red: \(breakdown[2])")
        #expect(breakdown.last?.contains("\u{1B}[33m   +2\u{1B}[0m") == true, "the total is amber: \(breakdown.last ?? "")")
        // NO_COLOR wins over CLICOLOR_FORCE.
        #expect(!(try cli.ok("standings", round, environment: ["NO_COLOR": "1", "CLICOLOR_FORCE": "1"])).contains("\u{1B}["))
    }
}
