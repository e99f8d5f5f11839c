import Foundation
import HyzerKit

/// A wall clock the test drives: every reading returns the current value and then moves it on
/// by `step` milliseconds, so two replicas with different starts never share a reading by
/// accident, and a test can jump a replica's time with `set(_:)`.
public final class TestClock: WallClock, @unchecked Sendable {
    // @unchecked: `now` is only touched under `lock`.
    private let lock = NSLock()
    private var now: UInt64
    private let step: UInt64

    public init(start: UInt64, step: UInt64 = 1) {
        now = start
        self.step = step
    }

    public func nowMilliseconds() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let reading = now
        now += step
        return reading
    }

    /// Moves the clock to `milliseconds` (backwards too: wall clocks lie).
    public func set(_ milliseconds: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        now = milliseconds
    }
}
