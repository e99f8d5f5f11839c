import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Synchronization

/// A delta bundle: the one format that carries ops between replicas. Files carry it signed, as
/// below; a connection carries it without the header and signature its handshake makes
/// redundant (`connectionEncoded`, docs/formats.md).
///
/// ```
/// "HYZB" ‖ version:u8(=2) ‖ group:16 ‖ sender:32 ‖ vector ‖ varint n ‖ n × segment ‖ signature:64
/// vector    = varint m ‖ m × entry                                 (authors ascending)
/// entry     = author:32 ‖ sequence:varint ‖ flags:u8 ‖ [hash prefix:8 if flags & 1] ‖ [fork point:varint if flags & 2]
/// sequences 1 … 2^63 − 1, in the vector and in every segment (first to last)
/// signature = Ed25519(sender, "hyzer-bundle/v1" ‖ 0x00 ‖ BLAKE2b-256(every byte before it))
/// ```
/// Version 1 bundles (entries `author ‖ sequence` only) are still read. A bundle with no
/// segments publishes its sender's version vector. Two segments of one author that disagree
/// are a fork's proof: they travel as ordinary segments.
public struct Bundle: Hashable, Sendable {
    /// The four bytes every bundle starts with: `HYZB`.
    public static let magic = Array("HYZB".utf8)
    /// The version this build writes; versions 1 and 2 are read.
    public static let formatVersion: UInt8 = 2
    /// The largest bundle this build reads or writes.
    public static let bytesMax = 512 * 1024 * 1024

    /// The group the bundle belongs to.
    public let groupID: UUID
    /// The device that made and signed the bundle.
    public let sender: AuthorID
    /// What the sender held when it made the bundle.
    public let senderVector: VersionVector
    /// The ops carried, one segment per run of one author's log; empty for a bundle that only
    /// publishes `senderVector`.
    public let segments: [AuthorSegment]

    /// A bundle from its parts, unsigned: packing signs it with the sender's key.
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
    ///
    /// A bundle of `signatureCheckedBesideBytes` or more has its signature checked on one thread
    /// while its segments are decoded on another (hashing a large bundle takes about as long as
    /// decoding it). What it throws is the same either way: a signature that fails before any
    /// error of the body.
    public init(decoding bytes: [UInt8], expectedGroup: UUID) throws(BundleError) {
        guard bytes.count <= Self.bytesMax else { throw .tooLarge(bytes: bytes.count) }
        guard bytes.count >= Self.magic.count + 1 + 16 + 32 + 64, Array(bytes.prefix(4)) == Self.magic else {
            throw .notABundle(reason: "no bundle header")
        }
        let version = bytes[4]
        guard version == 1 || version == Self.formatVersion else { throw .unsupportedVersion(version) }
        // The signed part is read where it lies, not copied (a bundle may be hundreds of MiB).
        let signedCount = bytes.count - 64
        var reader = ByteReader(bytes, prefix: signedCount)
        let sender: AuthorID
        do {
            _ = try reader.readRaw(5)
            groupID = try reader.readUUID()
            sender = try reader.readAuthorID()
        } catch {
            throw .notABundle(reason: "\(error)")
        }
        guard groupID == expectedGroup else { throw .wrongGroup(expected: expectedGroup, found: groupID) }
        self.sender = sender
        let header = reader

        let authentic: Bool
        let body: Result<Body, ByteDecodingError>?
        if signedCount >= Self.signatureCheckedBesideBytes {
            let parts = Mutex<(authentic: Bool, body: Result<Body, ByteDecodingError>?)>((false, nil))
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                if part == 0 {
                    let verified = Self.authenticates(bytes, signedCount: signedCount, sender: sender)
                    parts.withLock { $0.authentic = verified }
                } else {
                    let decoded = Self.readBody(after: header, version: version)
                    parts.withLock { $0.body = decoded }
                }
            }
            (authentic, body) = parts.withLock { ($0.authentic, $0.body) }
        } else {
            authentic = Self.authenticates(bytes, signedCount: signedCount, sender: sender)
            body = authentic ? Self.readBody(after: header, version: version) : nil
        }
        guard authentic, let body else { throw .senderSignatureInvalid(sender: sender) }
        switch body {
        case .success(let (vector, segments)):
            senderVector = vector
            self.segments = segments
        case .failure(let error):
            throw .notABundle(reason: "\(error)")
        }
    }

    /// The size from which a bundle's signature is checked beside its decoding. Below it the
    /// hashing saved (about 0.1 ms at 64 KiB on the machine of docs/performance.md) is not much
    /// more than handing work to another thread costs.
    static let signatureCheckedBesideBytes = 64 * 1024

    /// Whether the signature that ends `bytes` is the sender's, of the `signedCount` bytes before it.
    private static func authenticates(_ bytes: [UInt8], signedCount: Int, sender: AuthorID) -> Bool {
        Ed25519.verify(signature: Array(bytes[signedCount...]), of: signedMessage(bytes[..<signedCount]), publicKey: sender.bytes)
    }

    /// A bundle's vector and segments.
    private typealias Body = (vector: VersionVector, segments: [AuthorSegment])

    /// What follows the header that `header` read: the vector and the segments, to the end of
    /// the signed part.
    private static func readBody(after header: ByteReader, version: UInt8) -> Result<Body, ByteDecodingError> {
        Result { () throws(ByteDecodingError) in
            var reader = header
            let vector = try readVector(&reader, version: version)
            let count = try reader.readCount(maximum: 1_000_000)
            var segments: [AuthorSegment] = []
            for _ in 0..<count {
                segments.append(try AuthorSegment(from: &reader))
            }
            try reader.expectEnd()
            return (vector, segments)
        }
    }

    static func signedMessage<Bytes: HyzerCrypto.ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        Array("hyzer-bundle/v1".utf8) + [0] + Blake2b.hash256(bytes)
    }

    /// Writes `vector` in the current (version 2) layout.
    static func write(_ vector: VersionVector, into writer: inout ByteWriter) {
        let entries = vector.sortedFullEntries
        writer.writeVarint(UInt64(entries.count))
        for (author, entry) in entries {
            writer.write(author)
            writer.writeVarint(entry.sequence)
            let hash = entry.hashPrefix.flatMap { $0.count == VersionVector.Entry.hashPrefixBytes ? $0 : nil }
            writer.write(UInt8((hash == nil ? 0 : 1) | (entry.frozenAt == nil ? 0 : 2)))
            if let hash { writer.write(raw: hash) }
            if let frozenAt = entry.frozenAt { writer.writeVarint(frozenAt) }
        }
    }

    /// Reads a vector in the layout of bundle format `version` (1: sequence numbers only).
    static func readVector(_ reader: inout ByteReader, version: UInt8 = formatVersion) throws(ByteDecodingError) -> VersionVector {
        let count = try reader.readCount(maximum: 1_000_000)
        var entries: [AuthorID: VersionVector.Entry] = [:]
        var previous: AuthorID?
        for _ in 0..<count {
            let author = try reader.readAuthorID()
            guard previous.map({ $0 < author }) ?? true else { throw .outOfRange(field: "vector order") }
            previous = author
            let sequence = try reader.readVarint()
            // A vector holds no zero entries: accepting one would give one vector two encodings.
            guard sequence >= 1, sequence <= AuthorSegment.sequenceMax else { throw .outOfRange(field: "vector sequence") }
            guard version >= 2 else {
                entries[author] = .init(sequence: sequence)
                continue
            }
            let flags = try reader.readByte()
            guard flags & ~3 == 0 else { throw .unknownTag(flags, field: "vector entry flags") }
            let hash = flags & 1 != 0 ? try reader.readRaw(VersionVector.Entry.hashPrefixBytes) : nil
            let frozenAt = flags & 2 != 0 ? try reader.readVarint() : nil
            guard frozenAt.map({ $0 >= 1 && $0 <= sequence }) ?? true else {
                throw .outOfRange(field: "vector entry")
            }
            entries[author] = .init(sequence: sequence, hashPrefix: hash, frozenAt: frozenAt)
        }
        return VersionVector(entries: entries)
    }
}
