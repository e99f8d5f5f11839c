import HyzerKit

/// A live query: the current value first, then each value that differs from the last one
/// yielded, whoever changed the store — this engine, another engine or `hyzer-peer` process on
/// the same store, or a sync (docs/embedding.md, "Live observation").
///
/// Each iteration is one observer of the engine's shared change monitor, subscribed when its
/// first value is asked for. After a change it reads the value again when asked for the next
/// one; changes that arrive meanwhile leave a single re-read pending, so a burst of commits costs
/// one read, and a read that finds the value unchanged yields nothing. The iteration ends when
/// its task is cancelled or the engine closes; either frees its place. A read that fails (the
/// round is unknown, the store unreadable) throws and ends the iteration, and so does a change
/// monitor that stopped on its own (`EngineError.changeMonitorStopped`).
///
/// Values arrive on the executor of the task that iterates: in a `@MainActor` model (a SwiftUI
/// view model), each value is handed to the loop's body on the main actor, with no hop for the
/// app to write, while the reads themselves run on the engine's store queue, never on the main
/// actor.
public struct LiveQuery<Value: Equatable & Sendable>: AsyncSequence, Sendable {
    /// The values observed.
    public typealias Element = Value

    let engine: HyzerEngine
    let query: Query<Value>

    /// A new observer of the query.
    public func makeAsyncIterator() -> Iterator { Iterator(engine: engine, query: query) }

    /// One observer: its change signals and the last value it yielded.
    public struct Iterator: AsyncIteratorProtocol {
        let engine: HyzerEngine
        let query: Query<Value>
        var signals: AsyncStream<Void>.Iterator?
        var last: Value?

        /// The current value the first time, then the next value that differs from the last
        /// one; `nil` once the task is cancelled or the engine closed.
        public mutating func next() async throws -> Value? {
            if signals == nil {
                guard !Task.isCancelled else { return nil }
                // Subscribed before the first read: a change after the read is never missed.
                signals = try await engine.subscribe().makeAsyncIterator()
                let value = try await engine.perform(.read, query.read)
                last = value
                return value
            }
            while await signals!.next() != nil {
                let value = try await engine.perform(.read, query.read)
                if value != last {
                    last = value
                    return value
                }
            }
            // Cancelled, closed, or the monitor stopped: only the last is an error.
            if !Task.isCancelled, engine.hub.monitorFailed { throw EngineError.changeMonitorStopped }
            return nil
        }
    }
}

extension HyzerEngine {
    /// A live query of `query`: the current value, then each changed value (see `LiveQuery`).
    /// Any number of tasks may iterate observations of one engine; they share one monitor.
    public nonisolated func observe<Value>(_ query: Query<Value>) -> LiveQuery<Value> {
        LiveQuery(engine: self, query: query)
    }

    /// The value of `query` now.
    public func read<Value>(_ query: Query<Value>) async throws -> Value {
        try await perform(.read, query.read)
    }
}
