import HyzerCrypto
import HyzerDomain

/// A run of consecutive ops of one author: what bundles and the TCP protocol carry.
/// Only the last op's signature travels; the hash chain from `previousHash` binds the rest.
public struct AuthorSegment: Hashable, Sendable {
    /// Where `Replica.delta(above:)` cuts an author's long run into segments (at the last
    /// signed op within it): 1 MiB of tails, well under a connection's 8 MiB bundle bound.
    public static let preferredBytesMax = 1 << 20

    /// The author whose ops these are.
    public let author: AuthorID
    /// The sequence number of the first op, from 1.
    public let firstSequence: UInt64
    /// The hash of op `firstSequence - 1` (zeros when `firstSequence` is 1).
    public let previousHash: [UInt8]
    /// Each op's `clock ‖ payload`, in sequence order.
    public let tails: [[UInt8]]
    /// The author's signature of the last op.
    public let lastSignature: [UInt8]

    /// A segment from its parts, unchecked: ingest verifies the chain and the signature.
    public init(author: AuthorID, firstSequence: UInt64, previousHash: [UInt8], tails: [[UInt8]], lastSignature: [UInt8]) {
        self.author = author
        self.firstSequence = firstSequence
        self.previousHash = previousHash
        self.tails = tails
        self.lastSignature = lastSignature
    }

    /// The segment of `ops`, which must be consecutive ops of one author, the last one signed.
    public init(ops: [SignedOp]) {
        precondition(!ops.isEmpty, "a segment holds at least one op")
        let last = ops[ops.count - 1]
        precondition(last.signature != nil, "a segment ends with a signed op")
        self.init(
            author: last.author, firstSequence: ops[0].sequence, previousHash: ops[0].previousHash,
            tails: ops.map(\.tail), lastSignature: last.signature!)
    }

    /// The largest sequence number a log may hold: sequence numbers are stored as SQLite integers.
    public static let sequenceMax = UInt64(Int64.max)

    /// The last op's sequence number; meaningful for segments that decode or verify, which
    /// keep it within `sequenceMax`.
    public var lastSequence: UInt64 { firstSequence &+ UInt64(max(tails.count, 1)) &- 1 }

    /// Rebuilds the ops, checking the hash chain implicitly and the last op's signature
    /// explicitly: one Ed25519 verification for the whole segment.
    public func verifiedOps() throws(IngestError) -> [SignedOp] {
        let ops = try chainedOps()
        try verifySignature(of: ops[ops.count - 1])
        return ops
    }

    /// Rebuilds the ops and their hash chain, without checking the signature: each op's hash
    /// covers every op before it, so a last hash equal to a verified op's proves the segment
    /// holds exactly the verified ops.
    func chainedOps() throws(IngestError) -> [SignedOp] {
        try checkHeader()
        var ops: [SignedOp] = []
        ops.reserveCapacity(tails.count)
        var previous = previousHash
        for (offset, tail) in tails.enumerated() {
            let op = SignedOp(
                author: author, sequence: firstSequence + UInt64(offset), previousHash: previous, tail: tail,
                signature: offset == tails.count - 1 ? lastSignature : nil)
            ops.append(op)
            previous = op.hash
        }
        return ops
    }

    /// Checks that the segment holds ops, numbered within range, after a valid previous op.
    func checkHeader() throws(IngestError) {
        guard !tails.isEmpty else { throw .emptySegment(author: author) }
        guard firstSequence <= Self.sequenceMax - UInt64(tails.count - 1) else { throw .sequenceOutOfRange(author: author) }
        guard firstSequence >= 1, previousHash.count == 32,
            firstSequence > 1 || previousHash == SignedOp.noPreviousHash
        else { throw .malformedSegment(author: author, reason: "its first op does not follow a valid previous op") }
    }

    /// Checks the signature of the last op (as `chainedOps()` or `SegmentChain` rebuild it).
    func verifySignature(of last: SignedOp) throws(IngestError) {
        guard last.hasValidSignature else {
            throw .signatureMismatch(author: author, sequence: lastSequence)
        }
    }
}
