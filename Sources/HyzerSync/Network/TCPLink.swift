import NIOCore
import NIOPosix

/// A TCP connection as a `ByteLink`: SwiftNIO's framed async channel (`Framing`), valid inside
/// the `executeThenClose` that made it (`PeerConnection.run(_:)`), which closes the socket.
/// NIO stops reading the socket while a few frames wait, so a fast peer meets backpressure.
public final class TCPLink: ByteLink, @unchecked Sendable {
    // @unchecked: `frames` is used by the one task that receives (the `ByteLink` contract).
    private var frames: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        frames = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Writes `frame` with its length prefix; suspends while NIO's writer holds back, and throws once
    /// the connection is closed.
    public func send(_ frame: [UInt8]) async throws { try await outbound.write(ByteBuffer(bytes: frame)) }

    /// Throws `FramingError.frameTooLarge` as soon as a length above the bound is read.
    public func receive() async throws -> [UInt8]? { try await frames.next().map { Array($0.readableBytesView) } }

    /// Finishes the outbound side: the peer reads what was sent, then the end of the stream.
    public func close() async { outbound.finish() }

    /// Opens framed TCP connections to one address; throws `DialFailure` when one cannot be made.
    public struct Opener: ByteLinkOpener, CustomStringConvertible {
        /// The address dialed.
        public let address: PeerAddress
        /// The address, `HOST:PORT`.
        public var description: String { "\(address)" }

        /// An opener of connections to `address`.
        public init(address: PeerAddress) { self.address = address }

        /// Dials `address`, runs `body` over the framed connection and closes it; throws `DialFailure`
        /// when the connection cannot be made.
        public func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
            let channel = try await PeerDialer.connect(address)
            return try await channel.executeThenClose { inbound, outbound in
                await body(TCPLink(inbound: inbound, outbound: outbound))
            }
        }
    }
}

extension PeerConnection {
    /// Runs the connection over a framed TCP channel (`PeerDialer.connect`, `PeerServer`), and closes it.
    func run(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async -> ConnectionOutcome {
        do {
            return try await channel.executeThenClose { inbound, outbound in
                await run(over: TCPLink(inbound: inbound, outbound: outbound))
            }
        } catch {
            var outcome = ConnectionOutcome()
            outcome.failure = .connectionLost
            return outcome
        }
    }
}
