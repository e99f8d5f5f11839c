import Foundation
import HyzerDomain
import HyzerTestSupport
import Testing

/// docs/rules.md: every derived view is a pure function of the op set, never of arrival order.
@Suite("Order independence")
struct OrderIndependenceTests {
    typealias F = Fixture
    static let round = F.round(pars: [3, 3, 4, 3, 5, 3])
    static let devices = [F.organizerPhone, F.organizerWatch, F.annaPhone, F.benPhone, F.strangerPhone]

    /// A messy op set: agreeing and disagreeing scores, corrections, resolutions, supersessions
    /// that do not count, invalid events, duplicate ids, exact copies, several finishes.
    static func scenario(seed: UInt64) -> (events: [ScoreEvent], finishes: [RoundFinish]) {
        var random = SplitMix64(seed: seed)
        let outsider = Participant(id: F.guest(92), name: "Outsider")
        var events: [ScoreEvent] = []
        for number in 1...90 {
            if !events.isEmpty, random.chance(4) {
                events.append(random.pick(events))
                continue
            }
            let id = !events.isEmpty && random.chance(4) ? random.pick(events).id : F.uuid(number)
            let supersedes =
                !events.isEmpty && random.chance(40)
                ? (0...random.below(3)).map { _ in random.pick(events).id } : []
            let playerID = random.chance(4) ? outsider.id : random.pick(round.participants).id
            let holeNumber = random.chance(3) ? random.pick([0, 7]) : 1 + random.below(round.holeCount)
            let strokeCount = random.chance(3) ? random.pick([0, 11]) : 2 + random.below(4)
            let event = ScoreEvent(
                id: id, roundID: random.chance(3) ? F.otherRoundID : round.id, holeNumber: holeNumber,
                playerID: playerID, strokeCount: strokeCount, supersedes: supersedes,
                reportedByPlayerID: random.chance(50) ? nil : random.pick(round.participants).id,
                deviceID: random.pick(devices),
                createdAt: HLCTimestamp(
                    physicalMilliseconds: 1_000 + UInt64(random.below(40)) * 100, counter: UInt32(random.below(2))
                )
            )
            events.append(event)
        }
        let finishes = (0..<random.below(4)).map { _ in
            RoundFinish(
                roundID: random.chance(10) ? F.otherRoundID : round.id, deviceID: random.pick(devices),
                createdAt: HLCTimestamp(physicalMilliseconds: 4_000 + UInt64(random.below(10)) * 100),
                force: random.chance(50)
            )
        }
        return (events, finishes)
    }

    /// Everything a command prints about the round, as JSON text.
    private static func views(_ evaluation: RoundEvaluation) throws -> [String] {
        var views = [
            try F.encodedJSON(evaluation.standings), try F.encodedJSON(evaluation.discrepancies),
            evaluation.status.rawValue,
        ]
        for participant in round.participants {
            views.append(try F.encodedJSON(evaluation.breakdown(player: participant.id)))
        }
        return views
    }

    @Test("shuffling events and finishes never changes any view", arguments: 1...24 as ClosedRange<UInt64>)
    func shuffles(seed: UInt64) throws {
        let (events, finishes) = Self.scenario(seed: seed)
        let reference = F.evaluate(events, finishes: finishes, round: Self.round)
        let referenceViews = try Self.views(reference)
        var random = SplitMix64(seed: seed ^ 0xDEAD_BEEF)
        for _ in 0..<60 {
            let shuffled = F.evaluate(random.shuffled(events), finishes: random.shuffled(finishes), round: Self.round)
            #expect(try Self.views(shuffled) == referenceViews)
            let sameEvaluation = shuffled == reference  // Kept out of #expect: its dump is huge.
            #expect(sameEvaluation, "valid and ignored events, finish and scores are the same")
        }
    }

    private static func caseName(_ reason: IgnoredEvent.Reason) -> String {
        switch reason {
        case .duplicateID: "duplicateID"
        case .wrongRound: "wrongRound"
        case .holeOutOfRange: "holeOutOfRange"
        case .strokesOutOfRange: "strokesOutOfRange"
        case .notAParticipant: "notAParticipant"
        case .beforeRoundStart: "beforeRoundStart"
        case .afterFinish: "afterFinish"
        case .lateForFinish: "lateForFinish"
        }
    }

    @Test("the scenarios exercise disputes, resolutions, ignored events and finishes")
    func scenariosAreMessy() {
        var reasons: Set<String> = []
        var disputes = 0
        var completed = 0
        var resolved = 0
        for seed: UInt64 in 1...24 {
            let (events, finishes) = Self.scenario(seed: seed)
            let evaluation = F.evaluate(events, finishes: finishes, round: Self.round)
            for ignored in evaluation.ignoredEvents {
                reasons.insert(Self.caseName(ignored.reason))
            }
            disputes += evaluation.discrepancies.count
            completed += evaluation.status == .completed ? 1 : 0
            resolved += evaluation.validEvents.count(where: { !$0.supersedes.isEmpty })
        }
        #expect(reasons.count >= 6, "reasons seen: \(reasons.sorted())")
        #expect(disputes > 10)
        #expect(completed > 3)
        #expect(resolved > 10)
    }
}
