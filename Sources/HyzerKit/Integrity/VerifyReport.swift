import HyzerDomain

/// The result of `Replica.verify()`: problems with the store itself, and authentic ops that
/// views ignore because they break a domain rule.
public struct VerifyReport: Sendable {
    /// Something wrong with the store: any of these means the replica cannot be trusted.
    public enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// SQLite's own integrity check failed.
        case databaseIntegrity(String)
        /// An op's stored hash differs from the hash of its bytes and its predecessor's hash.
        case hashMismatch(author: AuthorID, sequence: UInt64)
        /// A stored signature does not verify.
        case signatureInvalid(author: AuthorID, sequence: UInt64)
        /// The log has a hole, or its head disagrees with the authors table.
        case brokenLog(author: AuthorID, detail: String)
        /// A view table differs from the same table rebuilt from the log.
        case viewDiffers(table: String)

        /// The problem, in one sentence.
        public var description: String {
            switch self {
            case .databaseIntegrity(let message): "database integrity check failed: \(message)"
            case .hashMismatch(let author, let sequence): "op \(sequence) of author \(author.short) does not match its hash: it was changed"
            case .signatureInvalid(let author, let sequence): "the signature of op \(sequence) of author \(author.short) does not verify"
            case .brokenLog(let author, let detail): "the log of author \(author.short) is broken: \(detail)"
            case .viewDiffers(let table): "the view table \(table) differs from the one rebuilt from the log"
            }
        }
    }

    /// An authentic op that views ignore.
    public struct IgnoredOp: Hashable, Sendable {
        /// The op's author.
        public let author: AuthorID
        /// The op's sequence number in its author's log.
        public let sequence: UInt64
        /// Which rule it breaks, in one sentence.
        public let reason: String
    }

    /// Ops whose hash was recomputed.
    public var opsChecked = 0
    /// Signatures verified.
    public var signaturesChecked = 0
    /// What is wrong with the store; empty for a sound one.
    public var problems: [Problem] = []
    /// Authentic ops that views ignore, each with its reason.
    public var ignoredOps: [IgnoredOp] = []
    /// Authors frozen by a fork's proof or a stamp that does not increase, with the evidence.
    public var forks: [FrozenAuthor] = []

    /// True when the store holds no problem (ignored ops and forks are other replicas' doing).
    public var isIntact: Bool { problems.isEmpty }
}
