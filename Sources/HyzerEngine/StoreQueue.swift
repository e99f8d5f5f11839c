import Dispatch
import HyzerKit

/// Where an engine's store calls run: threads of dispatch queues of the engine's own, never the
/// caller's executor or Swift's cooperative pool (docs/embedding.md, "Off the caller's
/// executor").
///
/// A store call may block: SQLite's busy handler sleeps while another process holds the write
/// lock (up to `Replica.busyWait`, 5 s), and a commit waits for its fsync. On the cooperative
/// pool, whose threads are as many as the cores, a few such calls would stall every task of the
/// process. Writes run one at a time on a serial queue, as SQLite runs them anyway, so that
/// however many callers write while another process holds the lock, one thread waits for it.
/// Reads run side by side on a concurrent queue, each on a WAL snapshot of its own, which no
/// writer blocks.
final class StoreQueue: Sendable {
    /// What a call does to the store.
    enum Access {
        /// Only reads (it may still write a cache, as the history does, without waiting long).
        case read
        /// Commits a transaction.
        case write
    }

    private let writes: DispatchQueue
    private let reads: DispatchQueue

    init(label: String) {
        writes = DispatchQueue(label: label + ".writes", qos: .userInitiated)
        reads = DispatchQueue(label: label + ".reads", qos: .userInitiated, attributes: .concurrent)
    }

    /// Runs `body` on the queue for `access` and resumes the caller with its result,
    /// suspending (not blocking) the caller meanwhile. A store call is not interrupted:
    /// cancelling the caller's task takes effect when the call returns.
    func run<T: Sendable>(_ access: Access, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            (access == .write ? writes : reads).async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Runs `body` once every call started before it has finished, and before any started
    /// after it: what closing the database needs.
    func runAlone<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let reads = reads
        return try await withCheckedThrowingContinuation { continuation in
            writes.async {
                // Holding the write queue, wait for the reads under way, and keep new ones out.
                reads.sync(flags: .barrier) {
                    continuation.resume(with: Result { try body() })
                }
            }
        }
    }
}
