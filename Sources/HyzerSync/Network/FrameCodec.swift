import NIOCore

/// Frames on the wire: a 4-byte big-endian length, then that many bytes. Lengths above
/// `frameBytesMax` close the connection before any of the frame is buffered.
public enum Framing {
    /// The largest frame: a bundle part of 256 KiB plus the message tag and encryption overhead.
    public static let frameBytesMax = 256 * 1024 + 64
}

/// Why framing failed.
public enum FramingError: Error, Equatable, CustomStringConvertible {
    case frameTooLarge(bytes: Int)

    public var description: String {
        switch self {
        case .frameTooLarge(let bytes): "a frame of \(bytes) bytes is above the \(Framing.frameBytesMax)-byte bound"
        }
    }
}

/// Splits the byte stream into frames.
struct FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return .needMoreData }
        guard length <= Framing.frameBytesMax else { throw FramingError.frameTooLarge(bytes: Int(length)) }
        guard buffer.readableBytes >= 4 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: Int(length))!))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A frame cut short by the peer closing is dropped: nothing partial is ever delivered.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
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
    /// Adds framing and wraps the channel for async use. Runs on the channel's event loop.
    func framedAsyncChannel() throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
        try pipeline.syncOperations.addHandler(MessageToByteHandler(FrameEncoder()))
        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: self)
    }
}
