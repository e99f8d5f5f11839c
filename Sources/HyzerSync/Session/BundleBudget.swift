import Foundation

/// Memory for partial bundles shared by every connection of a process: each connection
/// reserves what it buffers, and gives it back when the bundle is ingested or the connection ends.
public final class BundleBudget: @unchecked Sendable {
    /// Bytes all connections together may buffer (docs/sync-protocol.md, bounds).
    public let bytesMax: Int
    private let lock = NSLock()
    private var used = 0

    /// A budget of `bytesMax` bytes for every connection of the process together (32 MiB by default).
    public init(bytesMax: Int = 32 * 1024 * 1024) {
        self.bytesMax = bytesMax
    }

    /// Bytes reserved now.
    public var bytesUsed: Int { lock.withLock { used } }

    func reserve(_ bytes: Int) -> Bool {
        lock.withLock {
            guard bytes <= bytesMax - used else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        lock.withLock { used -= bytes }
    }

    /// One connection's share, given back when it is released or dropped.
    final class Reservation {
        let budget: BundleBudget
        private(set) var bytes = 0

        init(_ budget: BundleBudget) { self.budget = budget }

        func grow(by count: Int) -> Bool {
            guard budget.reserve(count) else { return false }
            bytes += count
            return true
        }

        func shrink(by count: Int) {
            budget.release(count)
            bytes -= count
        }

        deinit { budget.release(bytes) }
    }
}
