import HyzerDomain

/// The rules a replica applies, as values: how the views merge scores, which register write
/// wins, whether ingest keeps ops that must wait, and which authors a delta carries. A replica
/// takes them when it opens; everything that ships opens with `.shipped`, the rules of
/// docs/rules.md and docs/replication.md. Only the simulator's own tests open replicas with a
/// wrong rule, to see the harness catch it (docs/simulation.md, "The harness has teeth").
public struct ReplicaPolicies: Sendable {
    /// Which valid score events are current scores.
    public var merge: MergeRule
    /// Which of two writes to one register stays.
    public var registers: RegisterRule
    /// Whether ingest keeps a segment that cannot be applied yet.
    public var pending: PendingRule
    /// Which held authors a delta carries.
    public var delta: DeltaRule

    /// Rules from their parts; the defaults are the shipped rules.
    public init(
        merge: MergeRule = .supersession, registers: RegisterRule = .lastWriterWins, pending: PendingRule = .keepsWaiting,
        delta: DeltaRule = .everyAuthor
    ) {
        self.merge = merge
        self.registers = registers
        self.pending = pending
        self.delta = delta
    }

    /// The rules that ship.
    public static let shipped = ReplicaPolicies()
}

/// Last writer wins on registers (course names, pars, player names, device records): whether
/// a write stamped `incoming` replaces the value stamped `held`. Stamps are the ops' encoded
/// `(clock, author, sequence)`, compared as bytes.
public struct RegisterRule: Sendable {
    /// Whether a write stamped `incoming` replaces the value stamped `held`.
    public let replaces: @Sendable (_ incoming: [UInt8], _ held: [UInt8]) -> Bool

    /// A rule from its function.
    public init(replaces: @escaping @Sendable (_ incoming: [UInt8], _ held: [UInt8]) -> Bool) {
        self.replaces = replaces
    }

    /// The greater stamp stays: the clock decides, the author and sequence break its ties, so
    /// every replica keeps the same value whatever the arrival order.
    public static let lastWriterWins = RegisterRule { incoming, held in held.lexicographicallyPrecedes(incoming) }
}

/// What ingest does with a segment it cannot apply yet — above a gap in its author's log, or
/// stamped further ahead of this replica's clock than it accepts: whether it keeps the segment
/// to wait (pending until the gap fills, held until the clock gets there).
public struct PendingRule: Sendable {
    /// Whether ingest keeps `segment` to wait rather than drop it.
    public let keeps: @Sendable (AuthorSegment) -> Bool

    /// A rule from its function.
    public init(keeps: @escaping @Sendable (AuthorSegment) -> Bool) {
        self.keeps = keeps
    }

    /// Every such segment waits: ingest never drops an op it was given.
    public static let keepsWaiting = PendingRule { _ in true }
}

/// Which authors a delta carries: given an author, this replica's own id and a way to read a
/// device's kind, whether the author's ops go in.
public struct DeltaRule: Sendable {
    /// Whether a delta carries `author`'s ops, given this replica's id and a device's kind.
    public let carries: @Sendable (_ author: AuthorID, _ local: AuthorID, _ kind: (AuthorID) -> DeviceKind?) -> Bool

    /// A rule from its function.
    public init(carries: @escaping @Sendable (_ author: AuthorID, _ local: AuthorID, _ kind: (AuthorID) -> DeviceKind?) -> Bool) {
        self.carries = carries
    }

    /// Every author the peer lacks ops of: a replica relays everyone's ops, its own and those
    /// it received (a watch's, above all, which reaches other phones only through its phone).
    public static let everyAuthor = DeltaRule { _, _, _ in true }
}
