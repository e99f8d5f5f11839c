import HyzerDomain
import Testing

/// docs/rules.md, "Round status".
@Suite("Round status")
struct RoundStatusTests {
    typealias F = Fixture

    @Test("a new round is active")
    func started() {
        #expect(F.evaluate([]).status == .active)
    }

    @Test("some scores missing: active")
    func partial() {
        var card = F.fullCard()
        card.removeLast()
        #expect(F.evaluate(card).status == .active)
    }

    @Test("every participant scored on every hole: awaiting finalization")
    func complete() {
        #expect(F.evaluate(F.fullCard()).status == .awaitingFinalization)
    }

    @Test("a disputed hole keeps the round active until it is resolved")
    func disputed() throws {
        let card = F.fullCard()
        let last = try #require(card.last)
        let other = F.event(1, F.gus, hole: 3, strokes: last.strokeCount + 1, device: F.benPhone, at: 1_000)
        #expect(F.evaluate(card + [other]).status == .active)
        let resolution = ScoreEvent(
            id: F.uuid(2), roundID: F.roundID, holeNumber: 3, playerID: F.gus.id, strokeCount: 4,
            supersedes: [last.id, other.id], reportedByPlayerID: F.olive.id, deviceID: F.organizerPhone,
            createdAt: HLCTimestamp(physicalMilliseconds: 9_000)
        )
        #expect(F.evaluate(card + [other, resolution]).status == .awaitingFinalization)
    }

    @Test("a finish by the organizer completes the round, forced or not")
    func finished() {
        #expect(F.evaluate(F.fullCard(), finishes: [F.finish(at: 90_000)]).status == .completed)
        #expect(
            F.evaluate([], finishes: [F.finish(by: F.organizerWatch, at: 90_000, force: true)]).status == .completed)
    }

    @Test("a finish from anyone else changes nothing")
    func finishedByOther() {
        #expect(
            F.evaluate(F.fullCard(), finishes: [F.finish(by: F.annaPhone, at: 90_000)]).status == .awaitingFinalization)
    }

    @Test("a guest organizer has no device, so nothing can finish the round")
    func guestOrganizer() {
        let round = Round(
            id: F.roundID, courseID: F.uuid(9), courseName: "C", organizerID: F.gus.id, participants: [F.gus],
            pars: [3], startedAt: .zero, startedBy: F.organizerPhone
        )
        let evaluation = F.evaluate([], finishes: [F.finish(at: 5)], round: round)
        #expect(evaluation.finish == nil)
        #expect(evaluation.status == .active)
    }
}
