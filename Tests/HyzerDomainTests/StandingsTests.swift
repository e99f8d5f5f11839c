import Foundation
import HyzerDomain
import Testing

/// docs/rules.md, "Standings".
@Suite("Standings")
struct StandingsTests {
    typealias F = Fixture
    static let dee = Participant(id: F.player(5), name: "Dee")
    static let five = F.round(participants: [F.olive, F.anna, F.ben, F.gus, dee])

    /// One event per (participant, strokes on hole 1).
    private func holeOne(_ scores: [(Participant, Int)], round: Round = five) -> [ScoreEvent] {
        scores.enumerated().map { index, score in
            F.event(
                index + 1, score.0, hole: 1, strokes: score.1, device: F.organizerPhone, at: 1_000 + UInt64(index),
                round: round.id)
        }
    }

    private func summary(_ standings: [StandingsEntry]) -> [String] {
        standings.map { "\($0.position) \($0.name) \($0.formatted)" }
    }

    @Test("ties share a position and the next skips (1, 1, 3); unscored share the next (4, 4)")
    func tiesThenUnscored() {
        let evaluation = F.evaluate(holeOne([(F.olive, 4), (F.ben, 2), (F.anna, 2)]), round: Self.five)
        #expect(summary(evaluation.standings) == ["1 Anna -1", "1 Ben -1", "3 Olive +1", "4 Dee E", "4 Gus E"])
    }

    @Test("scored 1, 2, 2 then unscored 4, 4")
    func oneTwoTwoFourFour() {
        let evaluation = F.evaluate(holeOne([(F.olive, 2), (F.ben, 4), (F.anna, 4)]), round: Self.five)
        #expect(summary(evaluation.standings) == ["1 Olive -1", "2 Anna +1", "2 Ben +1", "4 Dee E", "4 Gus E"])
        let dee = evaluation.standings[3]
        #expect(
            dee
                == StandingsEntry(
                    position: 4, playerID: Self.dee.id, name: "Dee", totalStrokes: 0, holesPlayed: 0, relativeToPar: 0,
                    formatted: "E", disputedHoles: 0
                ))
    }

    @Test("nobody scored: everyone is at position 1, by name")
    func nobodyScored() {
        #expect(
            summary(F.evaluate([], round: Self.five).standings) == [
                "1 Anna E", "1 Ben E", "1 Dee E", "1 Gus E", "1 Olive E",
            ])
    }

    @Test("names compare by UTF-8 bytes, not by locale: uppercase before lowercase before accents")
    func nameByteOrder() {
        let names = ["émile", "anna", "Zed", "Émile", "Ben"]
        let participants = names.enumerated().map { index, name in
            Participant(id: F.guest(index), name: name)
        }
        let round = F.round(participants: participants)
        let evaluation = F.evaluate(holeOne(participants.map { ($0, 3) }, round: round), round: round)
        #expect(evaluation.standings.map(\.name) == ["Ben", "Zed", "anna", "Émile", "émile"])
        #expect(evaluation.standings.allSatisfy { $0.position == 1 })
    }

    @Test("equal score and name: the player id decides, by bytes")
    func idTieBreak() {
        let participants = [
            Participant(id: F.guest(2), name: "Sam"), Participant(id: F.guest(1), name: "Sam"),
            Participant(id: F.guest(4), name: "Sam"), Participant(id: F.guest(3), name: "Sam"),
        ]
        let round = F.round(participants: participants)
        let scored = F.evaluate(holeOne([(participants[0], 3), (participants[1], 3)], round: round), round: round)
        #expect(scored.standings.map(\.playerID) == [F.guest(1), F.guest(2), F.guest(3), F.guest(4)])
        #expect(scored.standings.map(\.position) == [1, 1, 3, 3])
    }

    @Test("totals count scored holes only; a disputed hole counts its chosen leaf")
    func totals() {
        let annaHole1 = F.event(1, F.anna, hole: 1, strokes: 2, device: F.annaPhone, at: 1_000)
        let annaHole3 = F.event(2, F.anna, hole: 3, strokes: 6, device: F.annaPhone, at: 1_100)
        let benSaysHole3 = F.event(3, F.anna, hole: 3, strokes: 5, device: F.benPhone, at: 1_050)
        let evaluation = F.evaluate([annaHole1, annaHole3, benSaysHole3])
        let anna = evaluation.standings.first { $0.playerID == F.anna.id }
        // Hole 1: 2 on par 3; hole 3: disputed, chosen leaf is Ben's 5 (earlier) on par 4.
        #expect(
            anna
                == StandingsEntry(
                    position: 1, playerID: F.anna.id, name: "Anna", totalStrokes: 7, holesPlayed: 2, relativeToPar: 0,
                    formatted: "E", disputedHoles: 1
                ))
    }

    @Test("guests rank alongside registered players")
    func guests() {
        let events = [
            F.event(1, F.gus, hole: 1, strokes: 2, device: F.benPhone, at: 1_000),
            F.event(2, F.ben, hole: 1, strokes: 3, device: F.benPhone, at: 1_000),
        ]
        let evaluation = F.evaluate(events)
        #expect(summary(evaluation.standings) == ["1 Gus -1", "2 Ben E", "3 Anna E", "3 Olive E"])
        #expect(evaluation.standings.first?.playerID == F.gus.id)
    }

    @Test("a participant listed twice by the start op appears once")
    func duplicateParticipant() {
        let round = F.round(participants: [F.anna, F.ben, Participant(id: F.anna.id, name: "Anna again")])
        let evaluation = F.evaluate([], round: round)
        #expect(evaluation.standings.map(\.name) == ["Anna", "Ben"])
        #expect(evaluation.participants == [F.anna, F.ben])
    }

    @Test("the JSON keys are exactly the standings --json contract")
    func json() throws {
        let entry = StandingsEntry(
            position: 1, playerID: F.anna.id, name: "Jake", totalStrokes: 25, holesPlayed: 9, relativeToPar: -2,
            formatted: "-2", disputedHoles: 0
        )
        let json = try F.encodedJSON(entry)
        #expect(
            json == #"{"disputedHoles":0,"formatted":"-2","holesPlayed":9,"name":"Jake","playerID":"\#(F.anna.id)","position":1,"#
                + #""relativeToPar":-2,"totalStrokes":25}"#
        )
        #expect(try JSONDecoder().decode(StandingsEntry.self, from: Data(json.utf8)) == entry)
    }
}
