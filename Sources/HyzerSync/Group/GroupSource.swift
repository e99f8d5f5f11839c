import HyzerKit
import Synchronization

/// The group a long-running `serve` syncs under, read again from the store for the first new
/// connection after each store change it is told of: a rekey or a removal, written by this
/// process or another, applies to the next connection, and a flood of strangers while nothing
/// changes costs no store read at all (docs/sync-protocol.md, "Handshake").
final class GroupSource: Sendable {
    private let replica: Replica
    private let signals: ConnectionSignals
    private let state: Mutex<(group: GroupMembership, change: Int)>

    init(replica: Replica, group: GroupMembership, signals: ConnectionSignals) {
        self.replica = replica
        self.signals = signals
        state = Mutex((group, signals.changesPublished))
    }

    func current() -> GroupMembership {
        // Read before the store: a change published during the read is read again next time.
        let change = signals.changesPublished
        if let cached = state.withLock({ $0.change == change ? $0.group : nil }) { return cached }
        let fresh = try? replica.group()
        return state.withLock { state in
            if let fresh { (state.group, state.change) = (fresh, change) }
            return state.group
        }
    }
}
