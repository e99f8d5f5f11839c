import HyzerDomain
import Testing

@Suite("Score formatting and tiers")
struct ScoreFormattingTests {
    @Test(
        "relative to par is written E, +n or -n",
        arguments: [
            (0, "E"), (1, "+1"), (2, "+2"), (17, "+17"), (-1, "-1"), (-2, "-2"), (-12, "-12"),
        ] as [(Int, String)]
    )
    func formatted(relativeToPar: Int, expected: String) {
        let actual = ScoreFormatting.formatted(relativeToPar)
        #expect(actual == expected, "formatted(\(relativeToPar)) is \(actual), expected \(expected)")
    }

    @Test(
        "tiers: under < 0, at 0, over +1, way over ≥ +2",
        arguments: [
            (-3, .underPar), (-1, .underPar), (0, .atPar), (1, .overPar), (2, .wayOver), (3, .wayOver),
            (7, .wayOver),
        ] as [(Int, ScoreTier)]
    )
    func tier(relativeToPar: Int, expected: ScoreTier) {
        let actual = ScoreTier(relativeToPar: relativeToPar)
        #expect(actual == expected, "tier(\(relativeToPar)) is \(actual), expected \(expected)")
    }

    @Test("tiers and statuses encode as their contract names")
    func rawValues() throws {
        #expect(ScoreTier.underPar.rawValue == "underPar")
        #expect(ScoreTier.atPar.rawValue == "atPar")
        #expect(ScoreTier.overPar.rawValue == "overPar")
        #expect(ScoreTier.wayOver.rawValue == "wayOver")
        #expect(RoundStatus.active.rawValue == "active")
        #expect(RoundStatus.awaitingFinalization.rawValue == "awaitingFinalization")
        #expect(RoundStatus.completed.rawValue == "completed")
        #expect(try Fixture.encodedJSON([ScoreTier.wayOver]) == #"["wayOver"]"#)
    }
}
