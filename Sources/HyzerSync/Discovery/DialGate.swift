import Synchronization

/// A bound on dials to discovered peers that are under way at once (docs/discovery.md,
/// "Bounds"): a dial holds a place from before it connects until its peer has proved itself or
/// the connection ended, so strangers advertising a copied tag can never keep more than
/// `places` handshakes going, and dialers wait their turn in order.
final class DialGate: Sendable {
    private let state: Mutex<State>

    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var next: UInt64 = 0
    }

    init(places: Int) {
        state = Mutex(State(free: max(1, places)))
    }

    /// Waits for a place; false when the task was cancelled first (it holds no place then).
    func enter() async -> Bool {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    guard state.free > 0 else {
                        state.waiters.append((id, continuation))
                        return nil
                    }
                    state.free -= 1
                    return true
                }
                if let admitted { continuation.resume(returning: admitted) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Places free now.
    var free: Int { state.withLock { $0.free } }

    /// Dials waiting for a place now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Gives a place back: to the longest waiter, if any.
    func leave() {
        let next = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return CheckedContinuation<Bool, Never>?.none
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }

    /// One dial's place, given back once however many times `leave()` is called; holds none
    /// without a gate.
    final class Place: Sendable {
        private let gate: Mutex<DialGate?>

        init(_ gate: DialGate?) { self.gate = Mutex(gate) }

        func leave() {
            gate.withLock { gate in
                defer { gate = nil }
                return gate
            }?.leave()
        }
    }
}
