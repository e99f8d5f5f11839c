import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// A delta bundle: the one format that carries ops between replicas, in files and over TCP.
///
/// ```
/// "HYZB" ‖ version:u8 ‖ group:16 ‖ sender:32 ‖ vector ‖ varint n ‖ n × segment ‖ signature:64
/// vector    = varint m ‖ m × (author:32 ‖ sequence:varint)        (authors ascending)
/// sequences 1 … 2^63 − 1, in the vector and in every segment (first to last)
/// signature = Ed25519(sender, "hyzer-bundle/v1" ‖ 0x00 ‖ BLAKE2b-256(every byte before it))
/// ```
/// A bundle with no segments publishes its sender's version vector.
public struct Bundle: Hashable, Sendable {
    public static let magic = Array("HYZB".utf8)
    public static let formatVersion: UInt8 = 1
    /// The largest bundle this build reads or writes.
    public static let bytesMax = 512 * 1024 * 1024
    /// The highest sequence number a bundle, a vector or a sync message may name: the store keeps
    /// sequences as SQLite's signed 64-bit integers, so anything above 2^63 − 1 is refused here.
    public static let sequenceMax = UInt64(Int64.max)

    public let groupID: UUID
    public let sender: AuthorID
    /// What the sender held when it made the bundle.
    public let senderVector: VersionVector
    public let segments: [AuthorSegment]

    public init(groupID: UUID, sender: AuthorID, senderVector: VersionVector, segments: [AuthorSegment]) {
        self.groupID = groupID
        self.sender = sender
        self.senderVector = senderVector
        self.segments = segments
    }

    /// The signed bytes.
    public func encoded(signedBy sign: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: 128 + segments.reduce(0) { $0 + 100 + $1.tails.count * 80 })
        writer.write(raw: Self.magic)
        writer.write(Self.formatVersion)
        writer.write(groupID)
        writer.write(sender)
        Self.write(senderVector, into: &writer)
        writer.writeVarint(UInt64(segments.count))
        for segment in segments { segment.encode(into: &writer) }
        let signature = sign(Self.signedMessage(writer.bytes))
        writer.write(raw: signature)
        return writer.bytes
    }

    /// Reads and authenticates a bundle: its shape, its version, its group and its sender's
    /// signature. The segments' own signatures are checked by ingest.
    public init(decoding bytes: [UInt8], expectedGroup: UUID) throws(BundleError) {
        guard bytes.count <= Self.bytesMax else { throw .tooLarge(bytes: bytes.count) }
        guard bytes.count >= Self.magic.count + 1 + 16 + 32 + 64, Array(bytes.prefix(4)) == Self.magic else {
            throw .notABundle(reason: "no bundle header")
        }
        let version = bytes[4]
        guard version == Self.formatVersion else { throw .unsupportedVersion(version) }
        let signed = Array(bytes.dropLast(64))
        var reader = ByteReader(signed)
        do {
            _ = try reader.readRaw(5)
            groupID = try reader.readUUID()
            guard groupID == expectedGroup else { throw BundleError.wrongGroup(expected: expectedGroup, found: groupID) }
            sender = try reader.readAuthorID()
            guard Ed25519.verify(signature: Array(bytes.suffix(64)), of: Self.signedMessage(signed), publicKey: sender.bytes) else {
                throw BundleError.senderSignatureInvalid(sender: sender)
            }
            senderVector = try Self.readVector(&reader)
            let count = try reader.readCount(maximum: 1_000_000)
            var segments: [AuthorSegment] = []
            for _ in 0..<count {
                let segment = try AuthorSegment(from: &reader)
                try Self.checkSequences(of: segment)
                segments.append(segment)
            }
            try reader.expectEnd()
            self.segments = segments
        } catch let error as BundleError {
            throw error
        } catch {
            throw .notABundle(reason: "\(error)")
        }
    }

    /// Refuses a segment whose ops would run past `sequenceMax`.
    static func checkSequences(of segment: AuthorSegment) throws(DecodingError) {
        let (last, overflow) = segment.firstSequence.addingReportingOverflow(UInt64(segment.tails.count) - 1)
        guard !overflow, last <= sequenceMax else { throw .outOfRange(field: "segment sequence") }
    }

    static func signedMessage(_ bytes: [UInt8]) -> [UInt8] {
        Array("hyzer-bundle/v1".utf8) + [0] + Blake2b.hash256(bytes)
    }

    static func write(_ vector: VersionVector, into writer: inout ByteWriter) {
        let entries = vector.sortedEntries
        writer.writeVarint(UInt64(entries.count))
        for entry in entries {
            writer.write(entry.author)
            writer.writeVarint(entry.sequence)
        }
    }

    static func readVector(_ reader: inout ByteReader) throws(DecodingError) -> VersionVector {
        let count = try reader.readCount(maximum: 1_000_000)
        var vector = VersionVector()
        var previous: AuthorID?
        for _ in 0..<count {
            let author = try reader.readAuthorID()
            guard previous.map({ $0 < author }) ?? true else { throw .outOfRange(field: "vector order") }
            previous = author
            let sequence = try reader.readVarint()
            // A vector holds no zero entries: accepting one would give one vector two encodings.
            guard sequence >= 1, sequence <= sequenceMax else { throw .outOfRange(field: "vector sequence") }
            vector[author] = sequence
        }
        return vector
    }
}
