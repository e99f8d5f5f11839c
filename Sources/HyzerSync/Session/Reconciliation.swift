import HyzerDomain
import HyzerKit

/// One `reconcile` message: ranges the sender splits, with its summaries of their children, and
/// ranges settled by entries, with the sender's entries in them (docs/sync-protocol.md,
/// "Reconciliation").
public struct ReconcileStep: Equatable, Sendable {
    /// Each split range's 16 children, as the sender summarises them.
    public var splits: [AuthorRange: [RangeSummary]] = [:]
    /// The sender's entries in each range settled by entries.
    public var entries: [AuthorRange: VersionVector] = [:]

    /// A step with nothing in it.
    public init() {}

    /// A step of `splits` and `entries`.
    public init(splits: [AuthorRange: [RangeSummary]], entries: [AuthorRange: VersionVector]) {
        self.splits = splits
        self.entries = entries
    }

    /// Nothing to send.
    public var isEmpty: Bool { splits.isEmpty && entries.isEmpty }

    /// Splits in range order, each with its 16 summaries; then the entries' ranges in order, each
    /// with its entries in the layout of a bundle's vector.
    func write(into writer: inout ByteWriter) {
        writer.writeVarint(UInt64(splits.count))
        for (range, summaries) in splits.sorted(by: { $0.key < $1.key }) {
            range.write(into: &writer)
            for summary in summaries { summary.write(into: &writer) }
        }
        writer.writeVarint(UInt64(entries.count))
        for (range, vector) in entries.sorted(by: { $0.key < $1.key }) {
            range.write(into: &writer)
            Bundle.write(vector, into: &writer)
        }
    }

    /// Reads what `write` wrote: ranges strictly increasing within each list, each split with
    /// exactly 16 summaries, each entry in its range.
    static func read(_ reader: inout ByteReader) throws(ByteDecodingError) -> ReconcileStep {
        var step = ReconcileStep()
        var previous: AuthorRange?
        for _ in 0..<(try reader.readCount(maximum: 65_536)) {
            let range = try AuthorRange.read(&reader)
            guard range.canSplit, previous.map({ $0 < range }) ?? true else { throw .outOfRange(field: "split range") }
            previous = range
            var summaries: [RangeSummary] = []
            for _ in 0..<AuthorRange.fanout { summaries.append(try RangeSummary.read(&reader)) }
            step.splits[range] = summaries
        }
        previous = nil
        for _ in 0..<(try reader.readCount(maximum: 65_536)) {
            let range = try AuthorRange.read(&reader)
            guard previous.map({ $0 < range }) ?? true else { throw .outOfRange(field: "entries range") }
            previous = range
            let vector = try Bundle.readVector(&reader)
            guard vector.entries.keys.allSatisfy(range.contains) else { throw .outOfRange(field: "entry outside its range") }
            step.entries[range] = vector
        }
        return step
    }
}

/// Reconciles this side's version vector with the peer's, in as many steps as the ranges where
/// they differ take to narrow (docs/sync-protocol.md, "Reconciliation"). A pure state machine:
/// both sides run it on the same summaries and so decide alike, range by range, which side sends
/// what next; a peer out of step is refused.
///
/// Both sides open with their summaries of the root's 16 children. For each range the two
/// summaries disagree on:
/// - a side that holds nothing there sends nothing, and the other sends its entries (the side
///   that holds nothing needs them only to know what the peer holds);
/// - when both hold at most `entriesMax` entries there, or the range cannot split, each sends
///   its entries;
/// - otherwise each sends its summaries of the range's 16 children, and so on down.
/// It ends when no range is left open: each side then knows the peer's whole vector, its own
/// wherever their summaries agreed. Two vectors that differ in `d` authors out of `n` cost about
/// `d · log16(n)` summaries and `d · entriesMax` entries each way; equal ones, the two greetings.
///
/// A range's summary carries a 32-bit fingerprint, so two ranges that differ agree by chance once
/// in 2³² comparisons. The greetings also carry each whole vector's 64-bit fingerprint: a side
/// whose reconciled view of the peer's vector does not match it sends its whole vector as the
/// root's entries, once, and takes the peer's. Both sides reach that check in the same step
/// (a range whose summaries agree by chance looks settled to both), so it stays in step.
struct Reconciliation {
    /// The most entries a side holds in a range still settled by sending them.
    static let entriesMax = 8

    /// Why the peer's step is refused: it is not the step both sides' summaries call for.
    struct OutOfStep: Error {}

    let local: VectorSummary
    /// The peer's whole-vector fingerprint, from its greeting.
    private var peerWhole: UInt64?
    /// The whole vectors were exchanged: the summaries hid a difference.
    private var exchangedWhole = false
    /// What the peer's next step must carry: these splits and these entries, no other.
    private var expectedSplits: Set<AuthorRange> = []
    private var expectedEntries: Set<AuthorRange> = []
    /// Ranges whose entries the peer's are known to be (its entries, or none at all), replacing this side's.
    private var peerEntries: [AuthorRange: VersionVector] = [:]

    /// A reconciliation of `local` with a peer's vector.
    init(local: VersionVector) {
        self.local = VectorSummary(local)
    }

    /// The greeting's summaries: the root's 16 children.
    var greeting: [RangeSummary] { AuthorRange.root.children.map(local.summary(of:)) }

    /// The greeting's fingerprint of the whole vector.
    var wholeFingerprint: UInt64 { local.wholeFingerprint }

    /// Nothing more to hear from the peer.
    var isComplete: Bool { expectedSplits.isEmpty && expectedEntries.isEmpty }

    /// The peer's greeting: this side's next steps, in order (none when there is nothing to send).
    mutating func greeted(_ theirs: [RangeSummary], wholeFingerprint: UInt64) throws(OutOfStep) -> [ReconcileStep] {
        guard theirs.count == AuthorRange.fanout, peerWhole == nil else { throw OutOfStep() }
        peerWhole = wholeFingerprint
        var step = ReconcileStep()
        compare(AuthorRange.root.children, theirs, into: &step)
        return try next(step)
    }

    /// The peer's step: this side's next steps, in order (none when there is nothing to send).
    mutating func receive(_ theirs: ReconcileStep) throws(OutOfStep) -> [ReconcileStep] {
        guard peerWhole != nil, Set(theirs.splits.keys) == expectedSplits, Set(theirs.entries.keys) == expectedEntries else {
            throw OutOfStep()
        }
        expectedSplits = []
        expectedEntries = []
        var step = ReconcileStep()
        if let whole = theirs.entries[.root] {
            peerEntries = [.root: whole]
        } else {
            for (range, entries) in theirs.entries { peerEntries[range] = entries }
        }
        for (range, summaries) in theirs.splits.sorted(by: { $0.key < $1.key }) {
            guard summaries.count == AuthorRange.fanout else { throw OutOfStep() }
            compare(range.children, summaries, into: &step)
        }
        return try next(step)
    }

    /// `step` (unless empty) and, once nothing more is expected but the reconciled vector does
    /// not match the peer's whole fingerprint, the whole vector as the root's entries.
    private mutating func next(_ step: ReconcileStep) throws(OutOfStep) -> [ReconcileStep] {
        var steps = step.isEmpty ? [] : [step]
        guard isComplete, VectorSummary.wholeFingerprint(of: peerVector) != peerWhole else { return steps }
        // The peer's own whole vector does not match the fingerprint it sent: it is out of step.
        guard !exchangedWhole else { throw OutOfStep() }
        exchangedWhole = true
        expectedEntries = [.root]
        steps.append(ReconcileStep(splits: [:], entries: [.root: local.vector]))
        return steps
    }

    /// The peer's whole vector, once complete: this side's, with every range the peer's entries
    /// settled replaced by them.
    var peerVector: VersionVector {
        var entries = local.vector.entries
        for (range, theirs) in peerEntries {
            for author in local.authors(in: range) { entries[author] = nil }
            entries.merge(theirs.entries) { _, new in new }
        }
        return VersionVector(entries: entries)
    }

    /// Decides each range of `ranges` the two sides' summaries disagree on, alike on both sides.
    private mutating func compare(_ ranges: [AuthorRange], _ theirs: [RangeSummary], into step: inout ReconcileStep) {
        for (range, their) in zip(ranges, theirs) {
            let mine = local.summary(of: range)
            guard mine != their else { continue }
            if their.count == 0 {
                peerEntries[range] = VersionVector()
                step.entries[range] = local.entries(in: range)
            } else if mine.count == 0 {
                expectedEntries.insert(range)
            } else if max(mine.count, their.count) <= Self.entriesMax || !range.canSplit {
                step.entries[range] = local.entries(in: range)
                expectedEntries.insert(range)
            } else {
                step.splits[range] = range.children.map(local.summary(of:))
                expectedSplits.insert(range)
            }
        }
    }
}
