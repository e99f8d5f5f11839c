import HyzerKit
import Synchronization

/// The group a long-running `serve` syncs under, read again from the store at most once a
/// second: a rekey or a removal that lands while it runs applies to the next connection, and a
/// flood of strangers costs at most one store read a second (docs/security.md, "Re-keying").
final class GroupSource: Sendable {
    private let replica: Replica
    private let state: Mutex<(group: GroupMembership, readAt: ContinuousClock.Instant)>

    init(replica: Replica, group: GroupMembership) {
        self.replica = replica
        state = Mutex((group, ContinuousClock.now))
    }

    func current() -> GroupMembership {
        let now = ContinuousClock.now
        if let cached = state.withLock({ now - $0.readAt < .seconds(1) ? $0.group : nil }) { return cached }
        let fresh = try? replica.group()
        return state.withLock { state in
            if let fresh { state.group = fresh }
            state.readAt = now
            return state.group
        }
    }
}
