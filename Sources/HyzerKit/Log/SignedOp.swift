import Foundation
import HyzerCrypto
import HyzerDomain

/// One op of an author's log, as it is hashed, signed and stored.
///
/// The canonical body (docs/formats.md) is
/// `version ‖ author ‖ sequence ‖ previous ‖ tail`, where the tail is
/// `clock ‖ payload`. The op's hash is BLAKE2b-256 of the body, and its id-bearing
/// entities (players, courses, rounds, score events) take their UUIDs from that hash.
/// Only the tail travels in bundles: author, sequence and previous hash follow from the
/// segment that carries it.
public struct SignedOp: Hashable, Sendable {
    /// The op encoding's version byte.
    public static let formatVersion: UInt8 = 1

    /// The op's author.
    public let author: AuthorID
    /// The op's place in its author's log, from 1.
    public let sequence: UInt64
    /// The hash of the author's previous op; 32 zero bytes for sequence 1.
    public let previousHash: [UInt8]
    /// `clock ‖ payload`.
    public let tail: [UInt8]
    /// BLAKE2b-256 of the body.
    public let hash: [UInt8]
    /// The author's Ed25519 signature of the op. Replicas keep only some signatures (the head's,
    /// anchors, rekey ops': docs/store.md, "Signature compaction"); the ops before a kept one
    /// are covered by the hash chain.
    public let signature: [UInt8]?

    /// An op from its parts, computing its hash.
    public init(author: AuthorID, sequence: UInt64, previousHash: [UInt8], tail: [UInt8], signature: [UInt8]?) {
        self.author = author
        self.sequence = sequence
        self.previousHash = previousHash
        self.tail = tail
        self.signature = signature
        hash = Self.hash(author: author, sequence: sequence, previousHash: previousHash, tail: tail)
    }

    /// BLAKE2b-256 of `body(…)`, the same bytes laid out in scratch memory (on the stack for
    /// an op of ordinary size) rather than in an array made for each op: ingest hashes every op.
    static func hash(author: AuthorID, sequence: UInt64, previousHash: [UInt8], tail: [UInt8]) -> [UInt8] {
        let count = 1 + author.bytes.count + 8 + previousHash.count + tail.count
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 8) { body in
            body[0] = formatVersion
            var offset = 1
            func put(_ bytes: [UInt8]) {
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: body[offset..<offset + $0.count]).copyMemory(from: $0) }
                offset += bytes.count
            }
            put(author.bytes)
            withUnsafeBytes(of: sequence.bigEndian) {
                UnsafeMutableRawBufferPointer(rebasing: body[offset..<offset + 8]).copyMemory(from: $0)
            }
            offset += 8
            put(previousHash)
            put(tail)
            return Blake2b.hash256(UnsafeRawBufferPointer(body))
        }
    }

    /// A new local op, signed by `keys`.
    public init(
        keys: SigningKeyPair, author: AuthorID, sequence: UInt64, previousHash: [UInt8],
        clock: HLCTimestamp, payload: OpPayload
    ) {
        let tail = Self.tail(clock: clock, payloadBytes: payload.encoded())
        let unsigned = SignedOp(author: author, sequence: sequence, previousHash: previousHash, tail: tail, signature: nil)
        self = unsigned.with(signature: keys.sign(Self.signedMessage(hash: unsigned.hash)))
    }

    /// The same op carrying `signature`.
    public func with(signature: [UInt8]?) -> SignedOp {
        SignedOp(author: author, sequence: sequence, previousHash: previousHash, tail: tail, hash: hash, signature: signature)
    }

    /// An op whose `hash` was computed from these parts elsewhere (`SegmentChain`).
    init(author: AuthorID, sequence: UInt64, previousHash: [UInt8], tail: [UInt8], hash: [UInt8], signature: [UInt8]?) {
        self.author = author
        self.sequence = sequence
        self.previousHash = previousHash
        self.tail = tail
        self.hash = hash
        self.signature = signature
    }

    /// The canonical body that is hashed.
    public static func body(author: AuthorID, sequence: UInt64, previousHash: [UInt8], tail: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: 1 + 32 + 8 + 32 + tail.count)
        writer.write(formatVersion)
        writer.write(author)
        writer.write(sequence)
        writer.write(raw: previousHash)
        writer.write(raw: tail)
        return writer.bytes
    }

    /// `clock ‖ payload`.
    public static func tail(clock: HLCTimestamp, payloadBytes: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(capacity: OpLayout.clockBytes + payloadBytes.count)
        writer.write(clock)
        writer.write(raw: payloadBytes)
        return writer.bytes
    }

    /// What the author signs: a domain-separation prefix and the op's hash.
    public static func signedMessage(hash: [UInt8]) -> [UInt8] {
        Array("hyzer-op/v1".utf8) + [0] + hash
    }

    /// The 32 zero bytes that stand for "no previous op".
    public static let noPreviousHash = [UInt8](repeating: 0, count: 32)

    /// Whether `signature` is the author's valid signature of this op.
    public var hasValidSignature: Bool {
        guard let signature else { return false }
        return Ed25519.verify(signature: signature, of: Self.signedMessage(hash: hash), publicKey: author.bytes)
    }

    /// The tail's parts, read in place.
    var parts: OpTail<[UInt8]> { OpTail(tail) }

    /// The clock reading at the start of the tail; `nil` when the tail is too short to hold one.
    public var clock: HLCTimestamp? { parts.clock }

    /// The payload decoded from the tail, or why it could not be.
    public func payload() -> Result<OpPayload, ByteDecodingError> {
        Result { () throws(ByteDecodingError) in try parts.payload() }
    }

    /// The UUID of the entity this op creates, made from the first 16 bytes of its hash
    /// (RFC 9562 version 8, variant bits set).
    public var entityID: UUID { UUID(hashPrefix: hash) }
}

extension UUID {
    /// A version-8 UUID made from the first 16 bytes of a hash.
    public init(hashPrefix hash: [UInt8]) {
        precondition(hash.count >= 16, "a UUID needs 16 bytes")
        var b = Array(hash.prefix(16))
        b[6] = (b[6] & 0x0f) | 0x80
        b[8] = (b[8] & 0x3f) | 0x80
        self.init(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
