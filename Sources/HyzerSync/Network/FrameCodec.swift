import NIOConcurrencyHelpers
import NIOCore

/// Frames on the wire: a 4-byte big-endian length, then that many bytes. Lengths above the
/// bound close the connection before any of the frame is buffered.
public enum Framing {
    /// The largest frame: a bundle part of 256 KiB plus the message tag and encryption overhead.
    public static let frameBytesMax = 256 * 1024 + 64
}

/// Why framing failed.
public enum FramingError: Error, Equatable, CustomStringConvertible {
    /// A frame's length prefix said `bytes`, above the `limit` of its place in the connection.
    case frameTooLarge(bytes: Int, limit: Int)

    /// The failure in one sentence, with both numbers.
    public var description: String {
        switch self {
        case .frameTooLarge(let bytes, let limit): "a frame of \(bytes) bytes is above the \(limit)-byte bound"
        }
    }
}

/// Splits the byte stream into frames. The first `SyncEngine.handshakeFrames` frames (the
/// handshake and the stream header) may hold at most `SyncEngine.handshakeFrameBytesMax` bytes,
/// so a stranger cannot make the server buffer more than that; later ones `Framing.frameBytesMax`.
struct FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    private var framesDecoded = 0
    /// Marked when the first whole frame is decoded, if given.
    var firstFrame: FirstFrameArrival?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try nextFrame(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A frame cut short by the peer closing is dropped: nothing partial is ever delivered.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }

    /// The next whole frame in `buffer`, or `nil` until more bytes arrive; throws as soon as
    /// a length above the bound is readable.
    mutating func nextFrame(_ buffer: inout ByteBuffer) throws(FramingError) -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        let bound = framesDecoded < SyncEngine.handshakeFrames ? SyncEngine.handshakeFrameBytesMax : Framing.frameBytesMax
        guard length <= bound else { throw .frameTooLarge(bytes: Int(length), limit: bound) }
        guard buffer.readableBytes >= 4 + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        framesDecoded += 1
        if framesDecoded == 1 { firstFrame?.mark() }
        return buffer.readSlice(length: Int(length))
    }
}

/// Whether a connection's first whole frame has arrived. The decoder marks it on the event loop
/// as the bytes are read, before any task handles the frame, so the listener knows a dialer that
/// spoke from one that stays silent however busy its tasks are (`ConnectionLimits`).
final class FirstFrameArrival: Sendable {
    private let arrived = NIOLockedValueBox(false)

    var hasArrived: Bool { arrived.withLockedValue { $0 } }

    func mark() { arrived.withLockedValue { $0 = true } }
}

/// Prefixes each outbound frame with its length.
struct FrameEncoder: MessageToByteEncoder {
    typealias OutboundIn = ByteBuffer

    func encode(data: ByteBuffer, out: inout ByteBuffer) throws {
        precondition(data.readableBytes <= Framing.frameBytesMax, "frames are bounded")
        out.writeInteger(UInt32(data.readableBytes))
        out.writeImmutableBuffer(data)
    }
}

extension Channel {
    /// Adds framing and wraps the channel for async use, with backpressure: NIO stops reading
    /// the socket while a few frames wait to be handled; `firstFrame`, if given, is marked when
    /// the first whole frame arrives. Runs on the channel's event loop.
    func framedAsyncChannel(firstFrame: FirstFrameArrival? = nil) throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        var decoder = FrameDecoder()
        decoder.firstFrame = firstFrame
        try pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
        try pipeline.syncOperations.addHandler(MessageToByteHandler(FrameEncoder()))
        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
            wrappingChannelSynchronously: self, configuration: .init(backPressureStrategy: .init(lowWatermark: 2, highWatermark: 4)))
    }
}
