import HyzerDomain

/// Cuts one author's consecutive ops, added in sequence order, into segments that each end at
/// a signed op: at the last signed op within `bytesMax` bytes of tails or, when none lies within,
/// at the first signed op past them; a signed rekey or removal op ends its segment too (so every
/// receiver keeps its signature: docs/folder-sync.md, docs/sync-protocol.md). Ops after the last
/// signed op wait for the next.
struct SegmentCutter {
    let author: AuthorID
    let bytesMax: Int
    /// The hash of the op before the ops not yet cut.
    var previousHash = SignedOp.noPreviousHash
    private(set) var segments: [AuthorSegment] = []
    private var runFirst: UInt64
    private var run: [(tail: [UInt8], hash: [UInt8], signature: [UInt8]?)] = []
    private var runBytes = 0
    /// How many ops of `run` a cut now takes (through the op described above); 0 while no op of
    /// `run` is signed.
    private var cut = 0

    init(author: AuthorID, first: UInt64, bytesMax: Int) {
        self.author = author
        self.bytesMax = bytesMax
        runFirst = first
    }

    /// The next op.
    mutating func add(tail: [UInt8], hash: [UInt8], signature: [UInt8]?) {
        run.append((tail, hash, signature))
        runBytes += tail.count
        guard signature != nil else { return }
        if runBytes <= bytesMax || cut == 0 { cut = run.count }
        if OpTail(tail).isKind(.groupRekeyed) || OpTail(tail).isKind(.memberRemoved) {
            _ = emit(run.count)
        }
        // Each cut takes at least one op, so this ends.
        while cut > 0 && runBytes >= bytesMax, emit(cut) {}
    }

    /// The segments, or `nil` when the last op added is not signed.
    mutating func finish() -> [AuthorSegment]? {
        guard !run.isEmpty else { return segments }
        guard run[run.count - 1].signature != nil else { return nil }
        return emit(run.count) ? segments : nil
    }

    /// Cuts the first `count` ops of the run, the last of them signed, into a segment; false
    /// (and nothing cut) when that op is not signed.
    private mutating func emit(_ count: Int) -> Bool {
        guard count > 0, count <= run.count, let signature = run[count - 1].signature else { return false }
        segments.append(
            AuthorSegment(
                author: author, firstSequence: runFirst, previousHash: previousHash, tails: run[..<count].map(\.tail),
                lastSignature: signature))
        previousHash = run[count - 1].hash
        runFirst += UInt64(count)
        run.removeFirst(count)
        runBytes = 0
        cut = 0
        for (index, op) in run.enumerated() {
            runBytes += op.tail.count
            if op.signature != nil, runBytes <= bytesMax || cut == 0 { cut = index + 1 }
        }
        return true
    }
}
