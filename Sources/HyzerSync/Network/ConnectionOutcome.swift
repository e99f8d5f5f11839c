/// What crossed one connection, and why it ended.
public struct ConnectionOutcome: Encodable, Sendable {
    /// The peer's author id, once the handshake proved it.
    public var peer: String?
    /// Frame bytes sent, with their 4-byte length prefix.
    public var bytesSent = 0
    /// Frame bytes received, with their 4-byte length prefix.
    public var bytesReceived = 0
    /// Of those bytes, both ways, the handshake's and the stream headers': what every
    /// connection costs before the sync itself.
    public var handshakeBytes = 0
    /// Ops sent in bundles.
    public var opsSent = 0
    /// Ops from the peer's bundles that were new to the store.
    public var opsReceived = 0
    /// How long the connection lasted, in milliseconds.
    public var milliseconds = 0
    /// Empty when the exchange completed; otherwise why the connection was closed.
    public var failure: SyncFailure?

    /// An outcome of nothing crossed.
    public init() {}
}
