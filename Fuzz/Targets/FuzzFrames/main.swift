import FuzzDriver
import FuzzSupport
import NIOCore
import NIOEmbedded

@testable import HyzerSync

/// The TCP framing: the input's first byte sets the size of the chunks the rest arrives in
/// (at most 64 chunks, so a long input stays quick).
/// The frames delivered must be exactly those a plain reading of the stream finds, and a
/// length above the bound (tighter for the handshake's first frames) must close the stream
/// before its frame is buffered.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let first = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())
    let chunk = max(Int(first) + 1, stream.count / 64)

    // What the stream holds, read plainly.
    var expected: [[UInt8]] = []
    var tooLarge = false
    var offset = 0
    while stream.count - offset >= 4 {
        let length = stream[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        // The handshake's frames are bounded tighter than the rest (docs/sync-protocol.md, framing).
        let bound = expected.count < SyncEngine.handshakeFrames ? SyncEngine.handshakeFrameBytesMax : Framing.frameBytesMax
        if length > bound {
            tooLarge = true
            break
        }
        guard stream.count - offset - 4 >= length else { break }
        expected.append(Array(stream[offset + 4..<offset + 4 + length]))
        offset += 4 + length
    }

    let channel = EmbeddedChannel(handler: ByteToMessageHandler(FrameDecoder()))
    var delivered: [[UInt8]] = []
    var refused = false
    var start = 0
    while start < stream.count, !refused {
        let end = min(start + chunk, stream.count)
        do {
            try channel.writeInbound(ByteBuffer(bytes: stream[start..<end]))
        } catch FramingError.frameTooLarge {
            refused = true
        } catch {
            fatalError("unexpected framing error \(error)")
        }
        while let frame = try? channel.readInbound(as: ByteBuffer.self) { delivered.append(Array(frame.readableBytesView)) }
        start = end
    }
    _ = try? channel.finish()
    if !refused { while let frame = try? channel.readInbound(as: ByteBuffer.self) { delivered.append(Array(frame.readableBytesView)) } }
    FuzzFixtures.require(delivered == expected, "the frames delivered are the stream's frames")
    FuzzFixtures.require(refused == tooLarge, "an oversized length closes the stream")
    return 0
}

FuzzDriver.run(fuzz)
