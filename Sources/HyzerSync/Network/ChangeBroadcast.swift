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

    /// Polls the store every `interval` and publishes each change, until cancelled.
    public nonisolated func watch(_ monitor: StoreChangeMonitor, interval: Duration = .milliseconds(2)) async {
        var last = (try? monitor.version()) ?? 0
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard let version = try? monitor.version(), version != last else { continue }
            last = version
            await publish()
        }
    }
}
