/// A bidirectional link between two devices that carries frames in order, reliably: the seam
/// between the sync protocol and whatever moves its bytes (docs/architecture.md, "The transport
/// seam"). `PeerConnection.run(over:)` runs the same handshake and session over any link; TCP
/// (`TCPLink`) and an in-memory pair (`InMemoryLink`) are the package's two.
///
/// A link over a byte stream (TCP, a Bluetooth L2CAP channel, a serial line) frames it as TCP
/// does: each frame a 4-byte big-endian length, then the frame (docs/sync-protocol.md,
/// "Framing"). A link over messages (a WebSocket, a watch link) sends one frame per message.
/// Frames from a link are untrusted: the connection checks each against its bound
/// (`Framing.frameBytesMax`, and less during the handshake) before it handles it.
public protocol ByteLink: Sendable {
    /// Sends one frame. Suspends while the other end does not take more (that is the link's
    /// backpressure); throws once the link is closed or broken.
    func send(_ frame: [UInt8]) async throws

    /// The next frame from the other end; `nil` once the other end closed. One task receives at
    /// a time; cancelling it ends the call (by throwing or by returning `nil`).
    func receive() async throws -> [UInt8]?

    /// Closes the link: the other end receives what was sent before, then `nil`, and this end's
    /// waiting calls end. Closing twice does nothing.
    func close() async
}

/// Opens links to one peer, for a connection dialed again after each failure
/// (`PeerDialer.keepConnected`): TCP to an address (`TCPLink.Opener`), or an app's own channel.
public protocol ByteLinkOpener: Sendable {
    /// Opens a link to the peer, runs `body` over it and closes it. Throws when the link cannot
    /// be opened now (it is tried again later) or the task is cancelled.
    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result
}
