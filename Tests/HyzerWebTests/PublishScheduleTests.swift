import Testing

@testable import HyzerWeb

/// `PublishSchedule`: when `serve --publish` writes the site, as a pure function of changes,
/// finished publishes and the time.
@Suite struct PublishScheduleTests {
    @Test func theSiteIsPublishedAtOnceAtTheStartAndThenOnlyAfterAChange() {
        var schedule = PublishSchedule()
        #expect(schedule.next(at: .zero) == .publish)
        #expect(schedule.next(at: .milliseconds(10)) == .idle)
        schedule.finished(.wrote, at: .milliseconds(300))
        #expect(schedule.next(at: .seconds(30)) == .idle, "an unchanged store publishes nothing")
        // The first change after a quiet second is published at once.
        schedule.changed()
        #expect(schedule.next(at: .seconds(30)) == .publish)
    }

    @Test func changesWithinASecondOfAPublishWaitForTheNextSlotAndShareOnePublish() {
        var schedule = PublishSchedule()
        #expect(schedule.next(at: .zero) == .publish)
        schedule.finished(.wrote, at: .milliseconds(200))
        schedule.changed()
        #expect(schedule.next(at: .milliseconds(250)) == .wait(.milliseconds(750)))
        schedule.changed()
        schedule.changed()
        #expect(schedule.next(at: .milliseconds(900)) == .wait(.milliseconds(100)))
        #expect(schedule.next(at: .seconds(1)) == .publish)
        #expect(schedule.next(at: .seconds(1)) == .idle, "one publish covers the three changes")
        // A change during a publish is published after it, a second after that publish began.
        schedule.changed()
        schedule.finished(.wrote, at: .milliseconds(1_400))
        #expect(schedule.next(at: .milliseconds(1_400)) == .wait(.milliseconds(600)))
        #expect(schedule.next(at: .seconds(2)) == .publish)
    }

    @Test func aPublishThatWroteNothingHoldsNoSlot() {
        var schedule = PublishSchedule()
        #expect(schedule.next(at: .zero) == .publish)
        schedule.finished(.wrote, at: .milliseconds(100))
        // The commit's second signal: published (nothing had changed), no request sent.
        schedule.changed()
        #expect(schedule.next(at: .seconds(1)) == .publish)
        schedule.finished(.unchanged, at: .milliseconds(1_050))
        // A score 300 ms later is published at once, as the slot was not used.
        schedule.changed()
        #expect(schedule.next(at: .milliseconds(1_300)) == .publish)
        schedule.finished(.wrote, at: .milliseconds(1_400))
        schedule.changed()
        #expect(schedule.next(at: .milliseconds(1_500)) == .wait(.milliseconds(800)))
    }

    @Test func aFailedPublishIsTriedAgainAfterABackOffThatDoublesUpToAMinute() {
        var schedule = PublishSchedule()
        #expect(schedule.next(at: .zero) == .publish)
        schedule.finished(.failed, at: .seconds(3))
        // Tried again without a new change, a second later.
        #expect(schedule.next(at: .seconds(3)) == .wait(.seconds(1)))
        #expect(schedule.next(at: .seconds(4)) == .publish)
        schedule.finished(.failed, at: .seconds(5))
        schedule.changed()
        #expect(schedule.next(at: .seconds(5)) == .wait(.seconds(2)), "a change does not cut the back-off short")
        var now = Duration.seconds(7)
        for expected in [4, 8, 16, 32, 60, 60] as [Int64] {
            #expect(schedule.next(at: now) == .publish)
            schedule.finished(.failed, at: now)
            #expect(schedule.next(at: now) == .wait(.seconds(expected)))
            now += .seconds(expected)
        }
        // A publish that succeeds ends the back-off.
        #expect(schedule.next(at: now) == .publish)
        schedule.finished(.wrote, at: now)
        #expect(schedule.failures == 0)
        schedule.changed()
        #expect(schedule.next(at: now + .seconds(1)) == .publish)
    }
}
