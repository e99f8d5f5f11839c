import HyzerTestSupport
import NIOCore
import Testing

@testable import HyzerSync

extension LiveSyncTests {
    /// The frame decoder fed byte by byte and in random splits, with no sockets.
    @Suite struct FrameDecoderTests {
        /// Frames of the handshake's sizes first, then larger ones, as the wire carries them.
        static func stream(_ rng: inout SplitMix64) -> (bytes: [UInt8], frames: [[UInt8]]) {
            var frames: [[UInt8]] = (0..<SyncEngine.handshakeFrames).map { _ in rng.bytes(1 + rng.below(SyncEngine.handshakeFrameBytesMax))
            }
            frames += (0..<20).map { _ in rng.bytes(rng.below(3) == 0 ? rng.below(Framing.frameBytesMax + 1) : rng.below(300)) }
            var bytes: [UInt8] = []
            for frame in frames {
                let length = UInt32(frame.count)
                bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + frame
            }
            return (bytes, frames)
        }

        /// Feeds `chunks` to one decoder and returns the frames it delivers.
        static func decode(_ chunks: [ArraySlice<UInt8>]) throws -> [[UInt8]] {
            var decoder = FrameDecoder()
            var buffer = ByteBuffer()
            var frames: [[UInt8]] = []
            for chunk in chunks {
                buffer.writeBytes(chunk)
                while let frame = try decoder.nextFrame(&buffer) { frames.append(Array(frame.readableBytesView)) }
                buffer.discardReadBytes()
            }
            return frames
        }

        @Test func oneByteAtATime() throws {
            var rng = SplitMix64(seed: 1)
            let (bytes, frames) = Self.stream(&rng)
            let chunks = bytes.indices.map { bytes[$0...$0] }
            #expect(try Self.decode(chunks) == frames)
        }

        @Test(arguments: 1...20) func randomSplits(seed: UInt64) throws {
            var rng = SplitMix64(seed: seed)
            let (bytes, frames) = Self.stream(&rng)
            var chunks: [ArraySlice<UInt8>] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + rng.below(rng.chance(50) ? 16 : 70_000))
                chunks.append(bytes[start..<end])
                start = end
            }
            #expect(try Self.decode(chunks) == frames)
        }

        @Test func aLengthAboveTheHandshakeBoundFailsBeforeItsBytesArrive() throws {
            var decoder = FrameDecoder()
            var buffer = ByteBuffer()
            buffer.writeInteger(UInt32(SyncEngine.handshakeFrameBytesMax + 1))
            #expect(
                throws: FramingError.frameTooLarge(bytes: SyncEngine.handshakeFrameBytesMax + 1, limit: SyncEngine.handshakeFrameBytesMax)
            ) {
                try decoder.nextFrame(&buffer)
            }
        }

        @Test func aLengthAboveTheFrameBoundFailsAfterTheHandshake() throws {
            var decoder = FrameDecoder()
            var buffer = ByteBuffer()
            for _ in 0..<SyncEngine.handshakeFrames { buffer.writeBytes([0, 0, 0, 1, 9]) }
            for _ in 0..<SyncEngine.handshakeFrames { #expect(try decoder.nextFrame(&buffer) != nil) }
            let length = UInt32(Framing.frameBytesMax + 1)
            buffer.writeInteger(length)
            #expect(throws: FramingError.frameTooLarge(bytes: Framing.frameBytesMax + 1, limit: Framing.frameBytesMax)) {
                try decoder.nextFrame(&buffer)
            }
            // Three bytes of a length are not a frame yet.
            var partial = ByteBuffer(bytes: [0, 0, 1])
            var fresh = FrameDecoder()
            #expect(try fresh.nextFrame(&partial) == nil)
        }
    }
}
