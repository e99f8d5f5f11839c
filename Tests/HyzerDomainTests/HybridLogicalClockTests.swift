import HyzerDomain
import Testing

@Suite("Hybrid logical clock")
struct HybridLogicalClockTests {
    private func at(_ milliseconds: UInt64, _ counter: UInt32 = 0) -> HLCTimestamp {
        HLCTimestamp(physicalMilliseconds: milliseconds, counter: counter)
    }

    @Test("a wall clock that moves forward gives its own time with counter 0")
    func tickForward() {
        var clock = HybridLogicalClock()
        #expect(clock.tick(nowMilliseconds: 100) == at(100))
        #expect(clock.tick(nowMilliseconds: 250) == at(250))
    }

    @Test("ticks within one millisecond count up")
    func tickSameMillisecond() {
        var clock = HybridLogicalClock()
        #expect(clock.tick(nowMilliseconds: 100) == at(100, 0))
        #expect(clock.tick(nowMilliseconds: 100) == at(100, 1))
        #expect(clock.tick(nowMilliseconds: 100) == at(100, 2))
    }

    @Test("a wall clock that goes backwards never makes the clock go backwards")
    func tickBackwardsWallClock() {
        var clock = HybridLogicalClock()
        let first = clock.tick(nowMilliseconds: 5_000)
        let second = clock.tick(nowMilliseconds: 1_000)
        let third = clock.tick(nowMilliseconds: 4_999)
        #expect(second == at(5_000, 1))
        #expect(third == at(5_000, 2))
        #expect(first < second && second < third)
        #expect(clock.tick(nowMilliseconds: 5_001) == at(5_001, 0))
    }

    @Test("a full counter moves to the next millisecond")
    func counterOverflow() {
        var clock = HybridLogicalClock(latest: at(100, .max))
        #expect(clock.tick(nowMilliseconds: 50) == at(101, 0))
    }

    @Test("observing a later remote reading makes the next tick exceed it")
    func observeAhead() {
        var clock = HybridLogicalClock()
        _ = clock.tick(nowMilliseconds: 1_000)
        clock.observe(at(61_000, 3), nowMilliseconds: 1_000)
        #expect(clock.latest == at(61_000, 3))
        #expect(clock.tick(nowMilliseconds: 1_001) == at(61_000, 4))
    }

    @Test("observing an older reading changes nothing")
    func observeOlder() {
        var clock = HybridLogicalClock()
        _ = clock.tick(nowMilliseconds: 9_000)
        clock.observe(at(8_000, 7), nowMilliseconds: 9_000)
        #expect(clock.latest == at(9_000))
    }

    @Test(
        "a remote reading more than ten minutes ahead is not adopted",
        arguments: [
            (600_000, true), (600_001, false), (599_999, true), (3_600_000, false),
        ] as [(UInt64, Bool)]
    )
    func observeCeiling(aheadMilliseconds: UInt64, adopted: Bool) {
        let now: UInt64 = 1_000_000
        var clock = HybridLogicalClock()
        _ = clock.tick(nowMilliseconds: now)
        let remote = at(now + aheadMilliseconds, 5)
        clock.observe(remote, nowMilliseconds: now)
        #expect((clock.latest == remote) == adopted, "remote \(aheadMilliseconds) ms ahead: latest \(clock.latest)")
        #expect(clock.tick(nowMilliseconds: now) > at(now))
        #expect(HybridLogicalClock.maximumDriftMilliseconds == 600_000)
    }

    @Test("readings compare by milliseconds, then counter, and print as ms.counter")
    func ordering() {
        #expect(at(1, 9) < at(2, 0))
        #expect(at(2, 0) < at(2, 1))
        #expect(!(at(2, 1) < at(2, 1)))
        #expect(at(1_712_000_000_123, 4).description == "1712000000123.4")
        #expect(HLCTimestamp.zero < at(0, 1))
    }
}
