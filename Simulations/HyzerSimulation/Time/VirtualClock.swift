import Foundation
import HyzerKit

/// The simulated world's true time, in milliseconds since the Unix epoch. Only the event loop
/// moves it; every device reads it through its own `ClockModel`.
///
/// A reference type because each replica holds its `WallClock` for its whole life, and the
/// time it reads must move on underneath it. The lock makes it safe to hand to a replica (a
/// `Sendable` world), though a run only ever touches it from one thread.
public final class VirtualClock: @unchecked Sendable {
    /// The instant every run starts at: 2025-06-14T08:00:00Z, a Saturday morning at the course.
    public static let epochMilliseconds: UInt64 = 1_749_888_000_000

    private let lock = NSLock()
    private var current: UInt64

    /// A clock standing at `start`.
    public init(start: UInt64 = VirtualClock.epochMilliseconds) {
        current = start
    }

    /// The true time now.
    public var now: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves time forward to `instant`; time never runs backwards in the world itself.
    public func advance(to instant: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        precondition(instant >= current, "the world's time never goes backwards")
        current = instant
    }
}

extension VirtualClock: IngestClock {
    /// The world's true time: it stands still while a device ingests, so an ingest is one
    /// transaction however long the machine takes over it, and a run never depends on its speed.
    public func reading() -> Duration { .milliseconds(now) }

    /// Returns at once: one thread runs the world, so no writer waits for the store.
    public func pause(for duration: Duration) {}
}
