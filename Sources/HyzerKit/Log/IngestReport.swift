import HyzerDomain

/// What one call to `Replica.ingest` did.
public struct IngestReport: Equatable, Sendable {
    /// Ops newly added to the log (including those a filled gap released).
    public var opsApplied = 0
    /// Ops newly added that finish a round (`roundFinished`, `roundFinishedCovering`): a live
    /// device signs its receipts when any arrived.
    public var finishesApplied = 0
    /// Ops already held.
    public var opsAlreadyHeld = 0
    /// Segments kept aside until the gap below them fills.
    public var segmentsPending = 0
    /// Segments held because their stamps are too far ahead of this replica's clock; applied
    /// once the clock gets there.
    public var segmentsHeld = 0
    /// Segments refused, each with its reason; they changed nothing, except that a fork's proof
    /// is kept and freezes its author.
    public var rejected: [IngestError] = []
    /// Whether an op that can change membership arrived (`Membership.kinds`, or the organizer's
    /// first ops): the transaction recomputes the members before it commits.
    var membershipTouched = false
    /// Authors whose ops were newly added, to report those that are no members.
    var appendedAuthors: Set<AuthorID> = []

    /// A report of nothing done.
    public init() {}

    /// Adds `rhs`'s counts and refusals to `lhs`: the report of two ingests in a row.
    public static func += (lhs: inout IngestReport, rhs: IngestReport) {
        lhs.opsApplied += rhs.opsApplied
        lhs.finishesApplied += rhs.finishesApplied
        lhs.opsAlreadyHeld += rhs.opsAlreadyHeld
        lhs.segmentsPending += rhs.segmentsPending
        lhs.segmentsHeld += rhs.segmentsHeld
        lhs.rejected += rhs.rejected
        lhs.membershipTouched = lhs.membershipTouched || rhs.membershipTouched
        lhs.appendedAuthors.formUnion(rhs.appendedAuthors)
    }
}
