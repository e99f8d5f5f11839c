import Foundation
import HyzerTestSupport
import Testing

/// The scoring rules a player meets at the command line: re-entering a score on the same device
/// corrects it, and totals are coloured in three tiers while holes keep four.
@Suite struct ScoringRuleTests {
    let directory = TemporaryDirectory("scoring-rules")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    func ok(_ arguments: String..., environment: [String: String] = [:]) throws -> String {
        let result = try cli.run(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")) failed: \(result)")
        #expect(result.stderr == "")
        return result.output
    }

    @Test func scoringTheSameHoleTwiceOnOneDeviceIsACorrection() throws {
        _ = try ok("init", "--name", "phone", "--owner", "Ann")
        let round = try ok("round", "start", "--course", "Morley Field", "--players", "Ann")
        let first = try ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "3")
        let second = try ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "5")
        #expect(second.hasSuffix(" corrects \(first)"), "\(second)")
        let secondID = String(second.prefix(36))
        #expect(try ok("discrepancies", round) == "no discrepancies")
        // A third entry corrects the second, not the first (which is no longer current).
        #expect(try ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "4").hasSuffix(" corrects \(secondID)"))
        let breakdown = try ok("breakdown", round, "--player", "Ann", "--json")
        #expect(breakdown.contains(#"{"disputed":false,"formatted":"+1","hole":1,"par":3,"relativeToPar":1,"strokes":4,"tier":"overPar"}"#))
        // The organizer can still finish once every hole is scored: nothing is left to resolve.
        for hole in 2...18 { _ = try ok("score", round, "--player", "Ann", "--hole", "\(hole)", "--strokes", "3") }
        #expect(try ok("round", "finish", round) == "finished round \(round)")
    }

    @Test func totalsAreColouredInThreeTiersAndHolesInFour() throws {
        _ = try ok("init", "--name", "phone", "--owner", "Ann")
        let round = try ok("round", "start", "--course", "Morley Field", "--players", "Ann")
        _ = try ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "5")
        let colour = ["NO_COLOR": "", "CLICOLOR_FORCE": "1"]
        let standings = try ok("standings", round, environment: colour).split(separator: "\n")
        // +2 over one hole: the total is amber (over par), not red.
        #expect(standings.last == "1  Ann     \u{1B}[33m   +2\u{1B}[0m        5     1", "\(standings)")
        let breakdown = try ok("breakdown", round, "--player", "Ann", environment: colour).split(separator: "\n")
        #expect(breakdown[2].contains("\u{1B}[31m   +2\u{1B}[0m"), "a double bogey hole stays red: \(breakdown[2])")
        #expect(breakdown.last?.contains("\u{1B}[33m   +2\u{1B}[0m") == true, "the total is amber: \(breakdown.last ?? "")")
        // NO_COLOR wins over CLICOLOR_FORCE.
        #expect(!(try ok("standings", round, environment: ["NO_COLOR": "1", "CLICOLOR_FORCE": "1"])).contains("\u{1B}["))
    }
}
