import HyzerDomain
import Testing

/// docs/rules.md, "Bad input" and "Round status": events that break the rules stay in the log and
/// are ignored by every view, with a reason.
@Suite("Event validity")
struct EventValidityTests {
    typealias F = Fixture

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        let label: String
        let event: ScoreEvent
        let reason: IgnoredEvent.Reason
        var testDescription: String { label }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(
            label: "another round",
            event: F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000, round: F.otherRoundID),
            reason: .wrongRound
        ),
        InvalidCase(
            label: "hole 0",
            event: F.event(1, F.anna, hole: 0, strokes: 3, device: F.annaPhone, at: 1_000),
            reason: .holeOutOfRange(hole: 0, holeCount: 3)
        ),
        InvalidCase(
            label: "hole past the last",
            event: F.event(1, F.anna, hole: 4, strokes: 3, device: F.annaPhone, at: 1_000),
            reason: .holeOutOfRange(hole: 4, holeCount: 3)
        ),
        InvalidCase(
            label: "negative hole",
            event: F.event(1, F.anna, hole: -2, strokes: 3, device: F.annaPhone, at: 1_000),
            reason: .holeOutOfRange(hole: -2, holeCount: 3)
        ),
        InvalidCase(
            label: "0 strokes",
            event: F.event(1, F.anna, hole: 1, strokes: 0, device: F.annaPhone, at: 1_000),
            reason: .strokesOutOfRange(strokes: 0)
        ),
        InvalidCase(
            label: "11 strokes",
            event: F.event(1, F.anna, hole: 1, strokes: 11, device: F.annaPhone, at: 1_000),
            reason: .strokesOutOfRange(strokes: 11)
        ),
        InvalidCase(
            label: "not a participant",
            event: F.event(
                1, Participant(id: F.guest(90), name: "X"), hole: 1, strokes: 3, device: F.annaPhone, at: 1_000),
            reason: .notAParticipant(player: F.guest(90))
        ),
        InvalidCase(
            label: "the first broken rule is reported",
            event: F.event(1, Participant(id: F.guest(91), name: "X"), hole: 9, strokes: 0, device: F.annaPhone, at: 1_000),
            reason: .holeOutOfRange(hole: 9, holeCount: 3)
        ),
    ]

    @Test("an invalid event is ignored with its reason", arguments: invalidCases)
    func invalidEvent(_ invalid: InvalidCase) {
        let evaluation = F.evaluate([invalid.event])
        #expect(evaluation.ignoredEvents == [IgnoredEvent(event: invalid.event, reason: invalid.reason)])
        #expect(evaluation.validEvents.isEmpty)
        #expect(evaluation.standings.allSatisfy { $0.holesPlayed == 0 })
        #expect(!invalid.reason.description.isEmpty)
    }

    @Test(
        "each reason reads as one sentence",
        arguments: [
            (.duplicateID, "another event has the same id and was created first"),
            (.wrongRound, "the event belongs to another round"),
            (.holeOutOfRange(hole: 19, holeCount: 18), "hole 19 is outside 1...18"),
            (.strokesOutOfRange(strokes: 0), "0 strokes is outside 1...10"),
            (.notAParticipant(player: Fixture.guest(1)), "\(Fixture.guest(1)) is not a participant of the round"),
            (.afterFinish, "the event was created after the round was finished"),
        ] as [(IgnoredEvent.Reason, String)]
    )
    func reasonDescription(reason: IgnoredEvent.Reason, expected: String) {
        #expect(reason.description == expected)
    }

    @Test("strokes 1 and 10 and holes 1 and holeCount are valid", arguments: [(1, 1), (10, 3), (5, 2)])
    func boundaries(strokes: Int, hole: Int) {
        let event = F.event(1, F.anna, hole: hole, strokes: strokes, device: F.annaPhone, at: 1_000)
        let evaluation = F.evaluate([event])
        #expect(evaluation.ignoredEvents.isEmpty)
        #expect(evaluation.score(player: F.anna.id, hole: hole).strokes == strokes)
    }

    @Test("ignored events are sorted by (createdAt, id) whatever their input order")
    func ignoredOrder() {
        let late = F.event(1, F.anna, hole: 9, strokes: 3, device: F.annaPhone, at: 3_000)
        let early = F.event(5, F.anna, hole: 1, strokes: 0, device: F.annaPhone, at: 1_000)
        let tie = F.event(2, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000, round: F.otherRoundID)
        let evaluation = F.evaluate([late, early, tie])
        #expect(evaluation.ignoredEvents.map(\.event) == [tie, early, late])
    }

    // MARK: Duplicate ids

    @Test("of two events with the same id, the earliest counts and the other is ignored")
    func duplicateIDEarliestWins() {
        let first = F.event(1, F.anna, hole: 1, strokes: 3, device: F.benPhone, at: 1_000)
        let forged = F.event(1, F.anna, hole: 1, strokes: 7, device: F.annaPhone, at: 1_001)
        let evaluation = F.evaluate([forged, first])
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .scored(strokes: 3, leaves: [first]))
        #expect(evaluation.ignoredEvents == [IgnoredEvent(event: forged, reason: .duplicateID)])
    }

    @Test("same id and same time: the smaller device id counts")
    func duplicateIDTieOnTime() {
        let fromBen = F.event(1, F.ben, hole: 2, strokes: 4, device: F.benPhone, at: 1_000)
        let fromAnna = F.event(1, F.ben, hole: 2, strokes: 6, device: F.annaPhone, at: 1_000)
        let evaluation = F.evaluate([fromBen, fromAnna])
        #expect(evaluation.score(player: F.ben.id, hole: 2) == .scored(strokes: 6, leaves: [fromAnna]))
        #expect(evaluation.ignoredEvents == [IgnoredEvent(event: fromBen, reason: .duplicateID)])
    }

    @Test("an exact copy of an event is the same op seen twice: nothing is ignored")
    func exactCopy() {
        let event = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let once = F.evaluate([event])
        let thrice = F.evaluate([event, event, event])
        #expect(thrice == once)
        #expect(thrice.ignoredEvents.isEmpty)
        #expect(thrice.validEvents == [event])
    }

    @Test("a duplicate that is itself invalid is still a duplicate, and the kept event is checked")
    func duplicateOfInvalid() {
        let kept = F.event(1, F.anna, hole: 1, strokes: 12, device: F.annaPhone, at: 1_000)
        let later = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 2_000)
        let evaluation = F.evaluate([later, kept])
        #expect(
            evaluation.ignoredEvents == [
                IgnoredEvent(event: kept, reason: .strokesOutOfRange(strokes: 12)),
                IgnoredEvent(event: later, reason: .duplicateID),
            ]
        )
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .unscored)
    }

    // MARK: Finish

    @Test("events created after the finish are ignored; at the finish's time they count")
    func afterFinish() {
        let before = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 4_999)
        let atFinish = F.event(2, F.anna, hole: 2, strokes: 3, device: F.annaPhone, at: 5_000)
        let after = F.event(3, F.anna, hole: 3, strokes: 3, device: F.annaPhone, at: 5_000, counter: 1)
        let organizerFirstScore = F.event(4, F.ben, hole: 1, strokes: 3, device: F.organizerPhone, at: 6_000)
        let correction = F.event(5, F.anna, hole: 1, strokes: 2, device: F.annaPhone, at: 6_000, supersedes: [before])
        let evaluation = F.evaluate(
            [before, atFinish, after, organizerFirstScore, correction], finishes: [F.finish(at: 5_000)]
        )
        #expect(evaluation.validEvents == [before, atFinish])
        #expect(
            evaluation.ignoredEvents == [
                IgnoredEvent(event: after, reason: .afterFinish),
                IgnoredEvent(event: organizerFirstScore, reason: .afterFinish),
                IgnoredEvent(event: correction, reason: .afterFinish),
            ]
        )
        #expect(evaluation.score(player: F.anna.id, hole: 1).strokes == 3)
    }

    @Test("a resolution from the organizer's device counts even after the finish")
    func resolutionAfterFinish() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let resolution = F.event(
            3, F.anna, hole: 1, strokes: 3, device: F.organizerWatch, at: 9_000, supersedes: [annas, bens])
        let finish = F.finish(at: 5_000, force: true)
        let before = F.evaluate([annas, bens], finishes: [finish])
        #expect(before.discrepancies.count == 1)
        let after = F.evaluate([annas, bens, resolution], finishes: [finish])
        #expect(after.ignoredEvents.isEmpty)
        #expect(after.score(player: F.anna.id, hole: 1) == .scored(strokes: 3, leaves: [resolution]))
        #expect(after.discrepancies.isEmpty)
        #expect(after.status == .completed)
    }

    @Test("only a finish from a device owning the organizer counts; the earliest one")
    func validFinish() {
        let stranger = F.finish(by: F.strangerPhone, at: 100)
        let anna = F.finish(by: F.annaPhone, at: 200)
        let otherRound = F.finish(by: F.organizerPhone, at: 300, round: F.otherRoundID)
        let watch = F.finish(by: F.organizerWatch, at: 700, force: true)
        let phone = F.finish(by: F.organizerPhone, at: 700)
        let later = F.finish(by: F.organizerPhone, at: 800)
        #expect(F.evaluate([], finishes: [stranger, anna, otherRound]).finish == nil)
        #expect(F.evaluate([], finishes: [stranger, anna, otherRound]).status == .active)
        // Same time: the smaller device id (the phone, 0x10…) wins over the watch (0x11…).
        #expect(F.evaluate([], finishes: [later, watch, stranger, phone]).finish == phone)
        #expect(F.evaluate([], finishes: [later, watch]).finish == watch)
    }

    @Test("a non-organizer's finish does not make later events ignored")
    func nonOrganizerFinishIgnored() {
        let event = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 9_000)
        let evaluation = F.evaluate([event], finishes: [F.finish(by: F.annaPhone, at: 1_000)])
        #expect(evaluation.ignoredEvents.isEmpty)
        #expect(evaluation.finish == nil)
    }
}
