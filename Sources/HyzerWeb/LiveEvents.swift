import Hummingbird
import HyzerSync
import ServiceLifecycle
import Synchronization

/// Server-Sent Events: one `board` event with the whole leaderboard fragment when a stream opens
/// and after every change of the store that changed it. A dropped page reconnects by itself
/// (EventSource, `retry:`) and gets the whole fragment again, so nothing is lost in between.
final class LiveEvents: Sendable {
    /// Streams open at once; more are refused with 503 until one closes.
    static let streamsMax = 256
    /// How long a browser waits before reconnecting a dropped stream.
    static let retryMilliseconds = 1000
    /// A comment line sent this often on a quiet stream, so a page that went away is noticed.
    static let keepalive: Duration = .seconds(15)

    let changes: ConnectionSignals
    let metrics: WebMetrics
    private let open = Mutex(0)

    init(changes: ConnectionSignals, metrics: WebMetrics) {
        self.changes = changes
        self.metrics = metrics
    }

    /// A stream of `render()`'s output, sent again whenever it changes.
    func stream(_ render: @escaping @Sendable () throws -> String) async -> Response {
        let admitted = open.withLock { count in
            guard count < Self.streamsMax else { return false }
            count += 1
            return true
        }
        guard admitted else {
            return Response(
                status: .serviceUnavailable, headers: [.retryAfter: "5"],
                body: .init(byteBuffer: ByteBuffer(string: "too many live pages\n")))
        }
        metrics.liveStreams.increment()
        // Subscribe before the first render, so a change in between is not missed.
        let signals = changes.storeChanges()
        let body = ResponseBody { [self] writer in
            let (ticks, tick) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(8))
            let forward = Task {
                for await _ in signals { tick.yield(true) }
                tick.finish()
            }
            let beat = Task {
                while (try? await Task.sleep(for: Self.keepalive)) != nil { tick.yield(false) }
            }
            defer {
                forward.cancel()
                beat.cancel()
                open.withLock { $0 -= 1 }
                metrics.liveStreams.decrement()
            }
            try await writer.write(ByteBuffer(string: "retry: \(Self.retryMilliseconds)\n\n"))
            var last = try render()
            try await writer.write(ByteBuffer(string: Self.event("board", last)))
            // The server's graceful shutdown ends the stream, so stopping never waits on a page.
            try await withGracefulShutdownHandler {
                for await changed in ticks {
                    guard changed else {
                        try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                        continue
                    }
                    let next = try render()
                    guard next != last else { continue }
                    last = next
                    try await writer.write(ByteBuffer(string: Self.event("board", next)))
                }
            } onGracefulShutdown: {
                tick.finish()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"], body: body)
    }

    /// One event in the SSE wire format: every line of `data` on a `data:` line of its own.
    static func event(_ name: String, _ data: String) -> String {
        "event: \(name)\n" + data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }
}
