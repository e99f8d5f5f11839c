import Dispatch

/// Where an engine's store calls run: threads of a dispatch queue of the engine's own, never the
/// caller's executor or Swift's cooperative pool (docs/embedding.md, "Off the caller's
/// executor").
///
/// A store call may block: SQLite's busy handler sleeps while another process holds the write
/// lock (up to `Replica.busyWait`, 5 s), and a large read or an fsync takes its time. On the
/// cooperative pool, whose threads are as many as the cores, a few such calls would stall every
/// task of the process. The queue is concurrent: GRDB's pool lets reads run side by side on
/// their own WAL snapshots and serialises the writes itself.
final class StoreQueue: Sendable {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
    }

    /// Runs `body` on the queue and resumes the caller with its result, suspending (not
    /// blocking) the caller meanwhile. A store call is not interrupted: cancelling the caller's
    /// task takes effect when the call returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

extension StoreQueue {
    /// Runs `body` once every call started before it has finished, and before any started
    /// after it: what closing the database needs.
    func runAlone<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async(flags: .barrier) {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
