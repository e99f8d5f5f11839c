import HyzerCrypto
import HyzerDomain
import HyzerKit

@testable import HyzerSync

/// The ingest target's input: segments given by their tails, which the target chains, signs
/// with a fixture author's key and seals into a bundle, so ingest and the materializer see
/// ops that pass every signature and hash check.
///
/// ```
/// segment = selector:u8 ‖ firstSequence:varint ‖ count:u8 ‖ count × (length:varint ‖ tail)
/// selector bit 0: which fixture author; bit 1: when this input holds no op before
///   `firstSequence`, link to 32 zero bytes instead of a made-up hash
/// ```
/// Reading stops at the first segment that does not parse; the segments before it are used.
public struct IngestInput: Equatable {
    public struct Segment: Equatable {
        public var selector: UInt8
        public var firstSequence: UInt64
        public var tails: [[UInt8]]

        public init(selector: UInt8, firstSequence: UInt64, tails: [[UInt8]]) {
            self.selector = selector
            self.firstSequence = firstSequence
            self.tails = tails
        }
    }

    public var segments: [Segment]

    public init(segments: [Segment]) { self.segments = segments }

    public init(decoding bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        var segments: [Segment] = []
        while !reader.isAtEnd, segments.count < 16 {
            guard let segment = try? Self.readSegment(&reader) else { break }
            segments.append(segment)
        }
        self.segments = segments
    }

    private static func readSegment(_ reader: inout ByteReader) throws(ByteDecodingError) -> Segment {
        let selector = try reader.readByte()
        let first = try reader.readVarint()
        let count = Int(try reader.readByte())
        var tails: [[UInt8]] = []
        for _ in 0..<count { tails.append(try reader.readLengthPrefixed(maximum: AuthorSegment.Limits.tailBytesMax)) }
        return Segment(selector: selector, firstSequence: first, tails: tails)
    }

    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        for segment in segments {
            writer.write(segment.selector)
            writer.writeVarint(segment.firstSequence)
            writer.write(UInt8(clamping: segment.tails.count))
            for tail in segment.tails.prefix(255) { writer.write(lengthPrefixed: tail) }
        }
        return writer.bytes
    }

    /// The segments, chained and signed: sequences wrap rather than trap, as a hostile
    /// writer's would, and the decoder is left to refuse them.
    public func signedSegments() -> [AuthorSegment] {
        var chains: [AuthorID: [UInt64: [UInt8]]] = [:]
        return segments.map { segment in
            let keys = FuzzFixtures.authors[Int(segment.selector & 1)]
            let author = FuzzFixtures.author(keys)
            let previousHash =
                chains[author]?[segment.firstSequence &- 1]
                ?? (segment.firstSequence == 1 || segment.selector & 2 != 0
                    ? SignedOp.noPreviousHash : Blake2b.hash256(author.bytes))
            var previous = previousHash
            for (offset, tail) in segment.tails.enumerated() {
                let sequence = segment.firstSequence &+ UInt64(offset)
                let op = SignedOp(author: author, sequence: sequence, previousHash: previous, tail: tail, signature: nil)
                chains[author, default: [:]][sequence] = op.hash
                previous = op.hash
            }
            let signature =
                segment.tails.isEmpty
                ? [UInt8](repeating: 0, count: SigningKeyPair.signatureBytes) : keys.sign(SignedOp.signedMessage(hash: previous))
            return AuthorSegment(
                author: author, firstSequence: segment.firstSequence, previousHash: previousHash, tails: segment.tails,
                lastSignature: signature)
        }
    }

    /// The signed segments in a bundle from the fixture sender, sealed as `import` reads it.
    public func sealedBundle() -> [UInt8] {
        let bundle = Bundle(
            groupID: FuzzFixtures.group.id, sender: FuzzFixtures.author(FuzzFixtures.sender), senderVector: VersionVector(),
            segments: signedSegments())
        return SealedFile.seal(bundle.encoded(signedBy: FuzzFixtures.sender.sign), group: FuzzFixtures.group)
    }
}
