extension WebServer {
    /// A web server running in its own task, and the port it listens on.
    public struct Running: Sendable {
        public let port: Int
        public let task: Task<Void, any Error>

        /// Stops the server: its streams close and its task ends.
        public func stop() { task.cancel() }
    }

    /// Starts serving in a new task and returns once the server listens (port 0 picks a free one).
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> Running {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { [self] in
            defer { continuation.finish() }
            try await run(host: host, port: port) { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await task.value  // the server failed to start: its error
            throw CancellationError()
        }
        return Running(port: bound, task: task)
    }
}
