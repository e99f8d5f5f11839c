import Foundation
import HyzerDomain
import Testing

/// docs/rules.md, "Hole-by-hole breakdown".
@Suite("Breakdown")
struct BreakdownTests {
    typealias F = Fixture
    static let round = F.round(pars: [3, 3, 3, 3, 4, 5])

    @Test(
        "each scored hole has its relative score, formatting and tier",
        arguments: [
            (4, 3, "+1", ScoreTier.overPar), (2, 3, "-1", .underPar), (3, 3, "E", .atPar), (5, 3, "+2", .wayOver),
            (8, 3, "+5", .wayOver), (1, 4, "-3", .underPar),
        ] as [(Int, Int, String, ScoreTier)]
    )
    func holeTier(strokes: Int, par: Int, formatted: String, tier: ScoreTier) {
        let hole = BreakdownHole(hole: 1, par: par, score: .scored(strokes: strokes, leaves: []))
        #expect(
            hole
                == BreakdownHole(
                    hole: 1, par: par, strokes: strokes, relativeToPar: strokes - par, formatted: formatted, tier: tier,
                    disputed: false
                ))
    }

    @Test("every hole is listed in order; the summary covers scored holes only")
    func breakdown() throws {
        let events = [
            F.event(1, F.ben, hole: 1, strokes: 2, device: F.benPhone, at: 1_000),
            F.event(2, F.ben, hole: 2, strokes: 3, device: F.benPhone, at: 1_100),
            F.event(3, F.ben, hole: 3, strokes: 4, device: F.benPhone, at: 1_200),
            F.event(4, F.ben, hole: 5, strokes: 7, device: F.benPhone, at: 1_400),
            F.event(5, F.ben, hole: 5, strokes: 6, device: F.annaPhone, at: 1_300),
            F.event(6, F.anna, hole: 4, strokes: 1, device: F.annaPhone, at: 1_300),
        ]
        let breakdown = try #require(F.evaluate(events, round: Self.round).breakdown(player: F.ben.id))
        #expect(breakdown.round == RoundID(F.roundID))
        #expect(breakdown.playerID == F.ben.id)
        #expect(breakdown.name == "Ben")
        #expect(
            breakdown.holes == [
                BreakdownHole(
                    hole: 1, par: 3, strokes: 2, relativeToPar: -1, formatted: "-1", tier: .underPar, disputed: false),
                BreakdownHole(
                    hole: 2, par: 3, strokes: 3, relativeToPar: 0, formatted: "E", tier: .atPar, disputed: false),
                BreakdownHole(
                    hole: 3, par: 3, strokes: 4, relativeToPar: 1, formatted: "+1", tier: .overPar, disputed: false),
                BreakdownHole(
                    hole: 4, par: 3, strokes: nil, relativeToPar: nil, formatted: nil, tier: nil, disputed: false),
                BreakdownHole(
                    hole: 5, par: 4, strokes: 6, relativeToPar: 2, formatted: "+2", tier: .wayOver, disputed: true),
                BreakdownHole(
                    hole: 6, par: 5, strokes: nil, relativeToPar: nil, formatted: nil, tier: nil, disputed: false),
            ])
        #expect(breakdown.totalStrokes == 15)
        #expect(breakdown.totalPar == 13)
        #expect(breakdown.relativeToPar == 2)
        #expect(breakdown.formatted == "+2")
    }

    @Test("a player with no score has every hole unscored and an even summary")
    func emptyBreakdown() throws {
        let breakdown = try #require(F.evaluate([], round: Self.round).breakdown(player: F.gus.id))
        #expect(breakdown.holes.map(\.hole) == [1, 2, 3, 4, 5, 6])
        #expect(breakdown.holes.map(\.par) == Self.round.pars)
        #expect(breakdown.holes.allSatisfy { $0.strokes == nil && $0.tier == nil })
        #expect([breakdown.totalStrokes, breakdown.totalPar, breakdown.relativeToPar] == [Int](repeating: 0, count: 3))
        #expect(breakdown.formatted == "E")
    }

    @Test("someone not in the round has no breakdown")
    func notAParticipant() {
        #expect(F.evaluate([]).breakdown(player: F.guest(99)) == nil)
    }

    @Test("the breakdown agrees with the standings")
    func agreesWithStandings() throws {
        let evaluation = F.evaluate(F.fullCard { participant, hole in participant == F.anna ? hole + 1 : 3 })
        for entry in evaluation.standings {
            let breakdown = try #require(evaluation.breakdown(player: entry.playerID))
            #expect(breakdown.totalStrokes == entry.totalStrokes)
            #expect(breakdown.relativeToPar == entry.relativeToPar)
            #expect(breakdown.formatted == entry.formatted)
        }
    }

    @Test("JSON keeps every key, with null for an unscored hole")
    func json() throws {
        let breakdown = Breakdown(
            round: RoundID(F.roundID), playerID: F.anna.id, name: "Jake",
            holes: [
                BreakdownHole(
                    hole: 1, par: 3, strokes: 2, relativeToPar: -1, formatted: "-1", tier: .underPar, disputed: false),
                BreakdownHole(
                    hole: 2, par: 4, strokes: nil, relativeToPar: nil, formatted: nil, tier: nil, disputed: false),
            ],
            totalStrokes: 2, totalPar: 3, relativeToPar: -1, formatted: "-1"
        )
        let json = try F.encodedJSON(breakdown)
        #expect(
            json
                == #"{"formatted":"-1","holes":[{"disputed":false,"formatted":"-1","hole":1,"par":3,"relativeToPar":-1,"#
                + #""strokes":2,"tier":"underPar"},{"disputed":false,"formatted":null,"hole":2,"par":4,"#
                + #""relativeToPar":null,"strokes":null,"tier":null}],"name":"Jake","playerID":"\#(F.anna.id)","relativeToPar":-1,"#
                + #""round":"\#(F.roundID.lowercased)","totalPar":3,"totalStrokes":2}"#
        )
        #expect(try JSONDecoder().decode(Breakdown.self, from: Data(json.utf8)) == breakdown)
    }
}
