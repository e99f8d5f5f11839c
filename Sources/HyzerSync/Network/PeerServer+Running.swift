extension PeerServer {
    /// A server running in its own task, and the address it listens on.
    public struct Running: Sendable {
        /// The address the server listens on, with the port it was given (a free one for port 0).
        public let address: PeerAddress
        /// The server's task: it ends, with the server's error if any, once stopped.
        public let task: Task<Void, any Error>

        /// Stops the server: its connections close and its task ends.
        public func stop() { task.cancel() }
    }

    /// Starts serving in a new task and returns once the server listens (port 0 picks a
    /// free port, which `Running.address` names).
    public func start(listeningOn address: PeerAddress = PeerAddress(host: "127.0.0.1", port: 0)) async throws -> Running {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { [self] in
            defer { continuation.finish() }
            try await run(listeningOn: address) { continuation.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value  // the server failed to start: its error
            throw CancellationError()
        }
        return Running(address: PeerAddress(host: address.host, port: port), task: task)
    }
}
