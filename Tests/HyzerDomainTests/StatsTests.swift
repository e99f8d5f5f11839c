import Foundation
import HyzerDomain
import HyzerTestSupport
import Testing

/// docs/domain.md, "Stats": pure functions of completed rounds, whatever their order.
@Suite("Stats")
struct StatsTests {
    typealias F = Fixture
    static let players = [F.olive, F.anna, F.ben]

    static func player(_ participant: Participant) -> Player {
        Player(
            id: participant.id.uuid, displayName: participant.name, createdAt: HLCTimestamp(physicalMilliseconds: 1),
            createdBy: F.organizerPhone)
    }

    /// A round of `cards` (strokes per hole, `nil` for a hole not scored), finished when `finished`.
    static func round(_ number: Int, at milliseconds: UInt64, _ cards: [Participant: [Int?]], finished: Bool = true) -> RoundEvaluation {
        let round = F.round(id: F.uuid(number, prefix: 0xB0), participants: players, startedAtMilliseconds: milliseconds)
        var events: [ScoreEvent] = []
        for participant in players {
            for (index, strokes) in (cards[participant] ?? []).enumerated() {
                guard let strokes else { continue }
                events.append(
                    F.event(
                        number * 100 + events.count, participant, hole: index + 1, strokes: strokes, device: F.organizerPhone,
                        at: milliseconds + 1 + UInt64(events.count), round: round.id))
            }
        }
        let finishes = finished ? [F.finish(at: milliseconds + 500, force: true, round: round.id)] : []
        return F.evaluate(events, finishes: finishes, round: round)
    }

    /// Three finished rounds (Ben misses a hole in the third) and one still running.
    static let rounds = [
        round(1, at: 1_000, [F.olive: [3, 3, 4], F.anna: [2, 3, 4], F.ben: [4, 4, 5]]),
        round(2, at: 5_000, [F.olive: [3, 3, 3], F.anna: [3, 3, 4], F.ben: [3, 3, 4]]),
        round(3, at: 9_000, [F.olive: [4, 3, 4], F.anna: [2, 3, 4], F.ben: [4, 3, nil]]),
        round(4, at: 12_000, [F.anna: [1, 1, 1]], finished: false),
    ]

    static let course = Course(
        id: F.uuid(1, prefix: 0xC0), name: "Morley Field", pars: [3, 3, 4], isSeeded: false, deleted: false,
        createdAt: HLCTimestamp(physicalMilliseconds: 1))

    @Test func aPlayersRecordCountsFullCardsOfCompletedRoundsAndTheEarliestBest() throws {
        let stats = PlayerStats(player: Self.player(F.anna), rounds: Self.rounds)
        #expect(stats.roundsPlayed == 3)
        #expect(stats.averageRelativeToPar == -0.67)
        #expect(stats.trend.map(\.relativeToPar) == [-1, 0, -1])
        #expect(stats.best?.round == RoundID(F.uuid(1, prefix: 0xB0)), "the earliest of two -1 rounds")
        #expect(stats.personalBests.map(\.round) == [RoundID(F.uuid(1, prefix: 0xB0))])
        let round1 = F.uuid(1, prefix: 0xB0).lowercased
        let best =
            #"{"course":"Morley Field","courseID":"\#(F.uuid(1, prefix: 0xC0).lowercased)","formatted":"-1","relativeToPar":-1,"round":"\#(round1)","startedAt":1000,"totalStrokes":9}"#
        #expect(try F.encodedJSON(stats).hasPrefix(#"{"averageRelativeToPar":-0.67,"best":\#(best),"name":"Anna","#))
        // Ben's third round misses a hole: it does not count.
        #expect(PlayerStats(player: Self.player(F.ben), rounds: Self.rounds).roundsPlayed == 2)
    }

    @Test func aPlayerWithNoRoundHasNullAverageAndBest() throws {
        let zed = Participant(id: F.player(9), name: "Zed")
        let stats = PlayerStats(player: Self.player(zed), rounds: Self.rounds)
        #expect(
            try F.encodedJSON(stats)
                == #"{"averageRelativeToPar":null,"best":null,"name":"Zed","personalBests":[],"playerID":"\#(zed.id)","roundsPlayed":0,"trend":[]}"#
        )
    }

    @Test func headToHeadCountsSharedFullCardsNewestFirst() throws {
        let record = HeadToHead(player: Self.player(F.anna), opponent: Self.player(F.olive), rounds: Self.rounds)
        #expect((record.sharedRounds, record.wins, record.losses, record.ties) == (3, 2, 1, 0))
        #expect(record.averageStrokeDifference == -0.67)
        #expect(record.lastMeetings.map(\.result) == [.win, .loss, .win])
        #expect(record.lastMeetings.map(\.startedAt) == [9_000, 5_000, 1_000])
        let benRecord = HeadToHead(player: Self.player(F.anna), opponent: Self.player(F.ben), rounds: Self.rounds)
        #expect((benRecord.sharedRounds, benRecord.wins, benRecord.ties, benRecord.averageStrokeDifference) == (2, 1, 1, -2))
    }

    @Test func headToHeadKeepsTheLastFiveMeetings() {
        let many = (1...7).map { Self.round($0, at: UInt64($0) * 1_000, [F.olive: [3, 3, 4], F.anna: [3, 3, 4]]) }
        let record = HeadToHead(player: Self.player(F.anna), opponent: Self.player(F.olive), rounds: many)
        #expect(record.sharedRounds == 7)
        #expect(record.ties == 7)
        #expect(record.lastMeetings.map(\.startedAt) == [7_000, 6_000, 5_000, 4_000, 3_000])
    }

    @Test func courseStatsAverageEachHoleAndPickTheHardestAndEasiest() throws {
        let stats = CourseStats(course: Self.course, rounds: Self.rounds)
        #expect((stats.roundsPlayed, stats.cards) == (3, 8))
        #expect(stats.holes.map(\.averageStrokes) == [3.0, 3.13, 4.0])
        #expect(stats.holes.map(\.averageRelativeToPar) == [0.0, 0.13, 0.0])
        #expect(stats.hardest?.hole == 2)
        #expect(stats.easiest?.hole == 1, "holes 1 and 3 tie at par: the lower number")
        let empty = CourseStats(course: Self.course, rounds: [])
        #expect(try F.encodedJSON(empty).contains(#""easiest":null,"hardest":null"#))
        #expect(try F.encodedJSON(empty).contains(#"{"averageRelativeToPar":null,"averageStrokes":null,"cards":0,"hole":1,"par":3}"#))
    }

    @Test(arguments: 1...20)
    func statsDoNotDependOnTheOrderOfRoundsOrEvents(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let shuffled = random.shuffled(Self.rounds).map { evaluation in
            RoundEvaluation(
                round: evaluation.round, events: random.shuffled(evaluation.validEvents),
                finishes: evaluation.finish.map { [$0] } ?? [], ownership: F.ownership)
        }
        // A round listed twice counts once.
        let doubled = shuffled + [shuffled[0]]
        for participant in Self.players {
            #expect(
                PlayerStats(player: Self.player(participant), rounds: doubled)
                    == PlayerStats(player: Self.player(participant), rounds: Self.rounds))
        }
        #expect(
            HeadToHead(player: Self.player(F.anna), opponent: Self.player(F.ben), rounds: doubled)
                == HeadToHead(player: Self.player(F.anna), opponent: Self.player(F.ben), rounds: Self.rounds))
        #expect(CourseStats(course: Self.course, rounds: doubled) == CourseStats(course: Self.course, rounds: Self.rounds))
    }
}
