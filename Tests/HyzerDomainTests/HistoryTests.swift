import Foundation
import HyzerDomain
import Testing

/// docs/rules.md, "History".
@Suite("History")
struct HistoryTests {
    typealias F = Fixture

    private func completedRound(_ number: Int, course: String, finishedAt: UInt64?) -> (Round, RoundEvaluation) {
        let round = F.round(
            id: F.uuid(number, prefix: 0xD0), participants: [F.anna, F.ben, F.gus],
            startedAtMilliseconds: UInt64(number) * 100, courseName: course)
        let events = [
            F.event(1, F.anna, hole: 1, strokes: 2, device: F.annaPhone, at: 1_000, round: round.id),
            F.event(2, F.ben, hole: 1, strokes: 2, device: F.benPhone, at: 1_000, round: round.id),
            F.event(3, F.gus, hole: 1, strokes: 5, device: F.benPhone, at: 1_000, round: round.id),
        ]
        let finishes = finishedAt.map { [F.finish(at: $0, round: round.id)] } ?? []
        return (round, F.evaluate(events, finishes: finishes, round: round))
    }

    @Test("completed rounds only, newest finish first, then round id descending")
    func order() {
        let rounds = [
            completedRound(1, course: "Morley Field", finishedAt: 50_000),
            completedRound(2, course: "Maple Hill", finishedAt: nil),
            completedRound(3, course: "DeLaveaga", finishedAt: 90_000),
            completedRound(4, course: "Morley Field", finishedAt: 50_000),
        ]
        let expected = [3, 4, 1].map { RoundID(F.uuid($0, prefix: 0xD0)) }
        #expect(History.entries(rounds, includeStandings: false).map(\.round) == expected)
        #expect(History.entries(rounds.reversed(), includeStandings: false).map(\.round) == expected)
    }

    @Test("an entry has the course, times, player count and every winner")
    func entry() throws {
        let (round, evaluation) = completedRound(7, course: "DeLaveaga", finishedAt: 123_456)
        let entry = try #require(History.entries([(round, evaluation)], includeStandings: false).first)
        #expect(
            entry
                == HistoryEntry(
                    round: RoundID(round.id), course: "DeLaveaga", finishedAt: 123_456, startedAt: 700,
                    players: 3, winners: ["Anna", "Ben"], standings: nil
                ))
        let withStandings = try #require(History.entries([(round, evaluation)], includeStandings: true).first)
        #expect(withStandings.standings == evaluation.standings)
        #expect(withStandings.standings?.map(\.position) == [1, 1, 3])
    }

    @Test("JSON leaves standings out unless requested")
    func json() throws {
        let entry = HistoryEntry(
            round: RoundID(F.uuid(0xAB)), course: "C", finishedAt: 2, startedAt: 1, players: 1, winners: ["W"], standings: nil)
        #expect(
            try F.encodedJSON(entry)
                == #"{"course":"C","finishedAt":2,"players":1,"round":"00000000-0000-4000-8000-0000000000ab","startedAt":1,"winners":["W"]}"#
        )
    }
}
