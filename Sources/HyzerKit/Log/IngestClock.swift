import Foundation

/// The time an ingest divides its work by (docs/store.md, "Bounded transactions"): a monotonic
/// reading that measures how long a transaction has worked against its budget, and the pause
/// between two transactions in which a writer waiting for the store takes it. A replica takes
/// one when it opens, beside its `WallClock`; the store reads no time and sleeps no thread of
/// its own. What ships uses `SystemIngestClock`; the simulator passes its world's time, which
/// stands still while an ingest runs, so how an ingest splits no longer depends on how fast the
/// machine runs it (docs/simulation.md, "Determinism").
public protocol IngestClock: Sendable {
    /// The clock's reading now: the time since an origin of its own, never going backwards.
    func reading() -> Duration
    /// Returns after about `duration`, or at once where no other writer can be waiting: called
    /// between two transactions of one ingest, so that a writer waiting for the lock gets it.
    func pause(for duration: Duration)
}

/// The operating system's monotonic clock: a transaction's work is measured in real time, and
/// the pause between two sleeps the ingesting thread, since a writer of another process waiting
/// for the lock retries every millisecond (SQLite's busy handler, `Replica.busyWait`).
public struct SystemIngestClock: IngestClock {
    private let origin = ContinuousClock.now

    /// The system's monotonic clock.
    public init() {}

    /// The time since this value was made, by the system's monotonic clock.
    public func reading() -> Duration {
        ContinuousClock.now - origin
    }

    /// Sleeps the calling thread for `duration`.
    public func pause(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
