/// What crossed one connection, and why it ended.
public struct ConnectionOutcome: Encodable, Sendable {
    /// The peer's author id, once the handshake proved it.
    public var peer: String?
    public var bytesSent = 0
    public var bytesReceived = 0
    public var opsSent = 0
    public var opsReceived = 0
    public var milliseconds = 0
    /// Empty when the exchange completed; otherwise why the connection was closed.
    public var failure: SyncFailure?

    public init() {}
}
