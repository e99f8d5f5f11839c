import HyzerKit
import Synchronization

/// The one change monitor of an engine and the observers it wakes (docs/embedding.md, "Live
/// observation").
///
/// The monitor (`StoreChangeMonitor`: this process's commits and, through inotify, every other
/// process's) starts with the first observer and runs until the engine closes. A task of its
/// own reads the monitor's stream and signals every observer. Each observer's signal is a
/// stream that buffers one element: while an observer re-reads, any number of further changes
/// leave one signal pending, so a burst of commits costs it at most one more read. An observer
/// whose iteration ends or is cancelled leaves through its stream's termination.
final class ChangeHub: Sendable {
    private struct State {
        var monitor: StoreChangeMonitor?
        var pump: Task<Void, Never>?
        var observers: [UInt64: AsyncStream<Void>.Continuation] = [:]
        var nextObserver: UInt64 = 0
        var stopped = false
        /// How many times the monitor stopped on its own.
        var failures = 0
    }

    private let state = Mutex(State())

    /// A stream that yields once after each change of the store from now on (bursts coalesced),
    /// starting the monitor first if no observer has yet. Blocks while the monitor opens its
    /// connection: call it on the engine's store queue. Throws when the monitor cannot start
    /// (no inotify) or the engine is closed.
    func subscribe(_ replica: Replica) throws -> AsyncStream<Void> {
        let (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = try state.withLock { state -> UInt64 in
            guard !state.stopped else { throw EngineError.closed }
            if state.monitor == nil {
                let monitor = try replica.changeMonitor()
                // `changes()` takes the store's version now: any commit after this line is seen.
                let changes = monitor.changes()
                state.monitor = monitor
                state.pump = Task { [weak self] in
                    for await _ in changes { self?.broadcast() }
                    self?.monitorEnded()
                }
            }
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.leave(id) }
        return signals
    }

    /// How many observers are listening now.
    var observerCount: Int { state.withLock { $0.observers.count } }

    /// Stops the monitor and ends every observer's stream.
    func stop() {
        let (pump, observers) = state.withLock { state in
            state.stopped = true
            defer {
                state.observers = [:]
                state.pump = nil
                state.monitor = nil
            }
            return (state.pump, Array(state.observers.values))
        }
        pump?.cancel()
        for observer in observers { observer.finish() }
    }

    /// Whether the monitor's stream ended while the engine was open (its thread met a
    /// descriptor in error): the observers it ended throw instead of ending quietly.
    var monitorFailed: Bool { state.withLock { $0.failures > 0 && !$0.stopped } }

    /// The monitor stopped on its own: every observer's stream ends, and the next observer
    /// starts a new monitor.
    private func monitorEnded() {
        let observers = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            guard !state.stopped else { return [] }
            state.failures += 1
            state.monitor = nil
            state.pump = nil
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    private func broadcast() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer.yield() }
    }

    private func leave(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }
}
