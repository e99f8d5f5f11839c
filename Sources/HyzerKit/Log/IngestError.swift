import HyzerDomain

/// Why a segment of ops was refused. Every case names the author and the check that failed;
/// a refused segment changes nothing.
public enum IngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A segment with no ops.
    case emptySegment(author: AuthorID)
    /// A segment whose header cannot start a valid chain.
    case malformedSegment(author: AuthorID, reason: String)
    /// The last op's signature is not the author's signature of the chain the segment carries:
    /// some byte of the segment was changed, or another key signed it.
    case signatureMismatch(author: AuthorID, sequence: UInt64)
    /// Two different ops with one author and sequence number: the author forked its log. The
    /// proof is kept and the author frozen at `sequence`.
    case fork(author: AuthorID, sequence: UInt64)
    /// Sequence numbers beyond what a log may hold (2^63 − 1).
    case sequenceOutOfRange(author: AuthorID)
    /// Ops of a device the group's organizer removed, above the last one that counts: they are
    /// kept, like every op of a log, but count nowhere.
    case removedMember(author: AuthorID, through: UInt64)
    /// Ops of a device no member admitted, in a group with an organizer (docs/security.md,
    /// "Membership"): kept, like every op of a log, but they count nowhere until an admission
    /// or a succession of a member arrives.
    case notAMember(author: AuthorID)

    /// Why the segment was refused, in one sentence.
    public var description: String {
        switch self {
        case .emptySegment(let author):
            "a segment of author \(author.short) holds no ops"
        case .malformedSegment(let author, let reason):
            "a segment of author \(author.short) is malformed: \(reason)"
        case .signatureMismatch(let author, let sequence):
            "the signature of author \(author.short)'s op \(sequence) does not verify: the data was changed or forged"
        case .fork(let author, let sequence):
            "author \(author.short) signed two different ops with sequence \(sequence) (a fork); its ops from \(sequence) on no longer count"
        case .sequenceOutOfRange(let author):
            "a segment of author \(author.short) has sequence numbers beyond 2^63 - 1"
        case .removedMember(let author, let through):
            "device \(author.short) was removed from the group: its ops after op \(through) are refused"
        case .notAMember(let author):
            "device \(author.short) is not a member of the group (no member admitted it with an invitation): its ops are kept but count nowhere"
        }
    }
}

extension AuthorID {
    /// The first 12 hexadecimal digits, for messages.
    public var short: String { String(hex.prefix(12)) }
}
