import HyzerKit

/// Fans "the store changed" out to every live connection. Each subscriber's stream keeps at
/// most one pending signal: a burst of commits costs one delta, not one per commit.
public actor ChangeBroadcast {
    private var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextID = 0

    public init() {}

    public func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.remove(id) }
        }
        return stream
    }

    public func publish() {
        for continuation in subscribers.values { continuation.yield() }
    }

    private func remove(_ id: Int) {
        subscribers[id] = nil
    }

    /// Publishes each change `monitor` reports (commits of this process and of others, without
    /// polling), until cancelled.
    public nonisolated func watch(_ monitor: StoreChangeMonitor) async {
        for await _ in monitor.changes() { await publish() }
    }
}
