import Foundation
import HyzerDomain
import HyzerKit

/// A bundle as a connection carries it: no magic, group, sender or signature, since the
/// connection's handshake proved the sender and its stream authenticates every byte
/// (docs/formats.md, "Connection bundles"; docs/sync-protocol.md).
///
/// ```
/// version:u8(=3) ‖ vector ‖ varint n ‖ n × segment
/// ```
/// The vector and segments are laid out as in a file's bundle (`Bundle`); each segment still
/// carries its author's signature, which ingest checks. A file's signed bundle sent over a
/// connection begins with `H` and is refused.
extension Bundle {
    /// The first byte of a connection bundle.
    public static let connectionFormat: UInt8 = 3

    /// The bytes a connection sends: the version, the sender's vector, the segments.
    public func connectionEncoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 16 + senderVector.heads.count * 50 + segments.reduce(0) { $0 + 100 + $1.tails.count * 80 })
        writer.write(Self.connectionFormat)
        Self.write(senderVector, into: &writer)
        writer.writeVarint(UInt64(segments.count))
        for segment in segments { segment.encode(into: &writer) }
        return writer.bytes
    }

    /// Reads a connection bundle from `sender`, the peer the handshake proved, in `groupID`.
    /// The segments' signatures are checked by ingest.
    public init(connectionBytes bytes: [UInt8], sender: AuthorID, groupID: UUID) throws(BundleError) {
        guard bytes.count <= Self.bytesMax else { throw .tooLarge(bytes: bytes.count) }
        guard let version = bytes.first else { throw .notABundle(reason: "empty") }
        guard version == Self.connectionFormat else {
            if bytes.starts(with: Self.magic) { throw .notABundle(reason: "a file's signed bundle, where a connection bundle belongs") }
            throw .unsupportedVersion(version)
        }
        var reader = ByteReader(bytes)
        do {
            _ = try reader.readByte()
            let vector = try Self.readVector(&reader)
            var segments: [AuthorSegment] = []
            for _ in 0..<(try reader.readCount(maximum: 1_000_000)) { segments.append(try AuthorSegment(from: &reader)) }
            try reader.expectEnd()
            self.init(groupID: groupID, sender: sender, senderVector: vector, segments: segments)
        } catch {
            throw .notABundle(reason: "\(error)")
        }
    }
}
