import Foundation
import HyzerDomain
import Testing

/// docs/rules.md, "Late scores": under a finish that carries the finishing device's vector, an
/// event that vector does not hold does not count. Stamped before the finish, it was written
/// before the finish and reached the finisher after it: late, listed, counted only by the
/// organizer's resolution. Stamped at or after the finish it is `afterFinish`.
@Suite struct LateScoreTests {
    typealias F = Fixture

    /// `event` with the sequence number it has in its device's log.
    static func numbered(_ event: ScoreEvent, _ sequence: UInt64) -> ScoreEvent {
        ScoreEvent(
            id: event.id, roundID: event.roundID, holeNumber: event.holeNumber, playerID: event.playerID, strokeCount: event.strokeCount,
            supersedes: event.supersedes, reportedByPlayerID: event.reportedByPlayerID, deviceID: event.deviceID,
            createdAt: event.createdAt, sequence: sequence)
    }

    /// The organizer's phone finished at 5 000 holding Anna's phone up to sequence 1.
    static let finish = RoundFinish(
        roundID: F.roundID, deviceID: F.organizerPhone, createdAt: HLCTimestamp(physicalMilliseconds: 5_000), force: true,
        covered: [F.annaPhone: 1, F.organizerPhone: 10])

    @Test func aScoreWrittenBeforeTheFinishThatTheFinisherHadNotReceivedIsLateNotAfterTheFinish() {
        let counted = Self.numbered(F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 2_000), 1)
        let late = Self.numbered(F.event(2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 4_000), 2)
        let after = Self.numbered(F.event(3, F.anna, hole: 3, strokes: 5, device: F.annaPhone, at: 6_000), 3)
        let evaluation = F.evaluate([after, late, counted], finishes: [Self.finish])
        #expect(evaluation.validEvents == [counted])
        #expect(
            evaluation.ignoredEvents == [
                IgnoredEvent(event: late, reason: .lateForFinish), IgnoredEvent(event: after, reason: .afterFinish),
            ])
        #expect(evaluation.lateEvents == [late])
        #expect(
            evaluation.lateScores == [
                LateScore(
                    playerID: F.anna.id, name: "Anna", hole: 2, strokes: 4, eventID: ScoreEventID(late.id),
                    deviceID: F.annaPhone, createdAt: "4000.0", reason: IgnoredEvent.Reason.lateForFinish.description)
            ])
        #expect(evaluation.standings.first { $0.playerID == F.anna.id }?.holesPlayed == 1, "standings do not count it")
        #expect(!IgnoredEvent.Reason.lateForFinish.description.contains("created after"))
    }

    @Test func theOrganizersResolutionNamingALateScoreCountsItAndItIsNoLongerListed() {
        let counted = Self.numbered(F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 2_000), 1)
        let late = Self.numbered(F.event(2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 4_000), 2)
        let organizers = Self.numbered(F.event(3, F.anna, hole: 2, strokes: 5, device: F.organizerPhone, at: 3_000), 5)
        let resolution = Self.numbered(
            F.event(4, F.anna, hole: 2, strokes: 4, device: F.organizerWatch, at: 9_000, supersedes: [organizers, late]), 1)
        // A phone that is not the organizer's cannot count it.
        let stranger = Self.numbered(F.event(5, F.anna, hole: 2, strokes: 2, device: F.benPhone, at: 6_000, supersedes: [late]), 1)
        let before = F.evaluate([counted, late, organizers], finishes: [Self.finish])
        #expect(before.lateEvents == [late])
        #expect(before.score(player: F.anna.id, hole: 2).strokes == 5)
        let after = F.evaluate([counted, late, organizers, resolution, stranger], finishes: [Self.finish])
        #expect(after.lateEvents.isEmpty)
        #expect(after.score(player: F.anna.id, hole: 2).strokes == 4)
        #expect(after.eventsWithIgnoredSupersessions.isEmpty, "naming the late event is a supersession the organizer may make")
        #expect(after.ignoredEvents.map(\.event.id) == [late.id, stranger.id])
    }

    @Test func aFinishWithoutItsVectorCutsOffByStampAndListsNothingAsLate() {
        let late = Self.numbered(F.event(2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 6_000), 2)
        let evaluation = F.evaluate([late], finishes: [F.finish(at: 5_000, force: true)])
        #expect(evaluation.ignoredEvents == [IgnoredEvent(event: late, reason: .afterFinish)])
        #expect(evaluation.lateEvents.isEmpty)
    }
}
