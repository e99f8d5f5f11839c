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

    /// Reserves `bytes` more for a share that holds `held`. When they do not fit, the share's
    /// `held` bytes are given back in the same step: a connection refused for want of room frees
    /// its share before any other connection looks, so of two that reach the bound together, only
    /// one is refused.
    func reserve(_ bytes: Int, orGiveBack held: Int) -> Bool {
        assert(bytes >= 0 && held >= 0, "counts of bytes")
        return lock.withLock {
            assert(held <= used && used <= bytesMax, "what a connection holds is part of what is used, within the bound")
            guard bytes <= bytesMax - used else {
                used -= held
                return false
            }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        assert(bytes >= 0, "a count of bytes")
        lock.withLock {
            assert(bytes <= used, "only what was reserved is released")
            used -= bytes
        }
    }

    /// One connection's share, given back when it is released or dropped.
    final class Reservation {
        let budget: BundleBudget
        private(set) var bytes = 0

        init(_ budget: BundleBudget) { self.budget = budget }

        /// Grows the share by `count` bytes, or gives the whole share back and says false.
        func grow(by count: Int) -> Bool {
            assert(count >= 0 && bytes >= 0, "counts of bytes")
            guard budget.reserve(count, orGiveBack: bytes) else {
                bytes = 0
                return false
            }
            bytes += count
            return true
        }

        func shrink(by count: Int) {
            assert(count >= 0 && count <= bytes, "a reservation gives back only what it holds")
            budget.release(count)
            bytes -= count
        }

        deinit { budget.release(bytes) }
    }
}
