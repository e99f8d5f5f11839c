import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    /// How long one ingest transaction may hold the store before it commits and lets a local
    /// write in (docs/store.md, "Bounded transactions"), by the replica's `IngestClock`.
    static let ingestTransactionBudget = Duration.milliseconds(50)
    /// The pause between two transactions of one ingest, in which a writer waiting for the store
    /// takes it, as the replica's `IngestClock` makes it.
    static let ingestPause = Duration.milliseconds(2)

    /// Ingests segments of ops from other replicas.
    ///
    /// Each segment is all-or-nothing: one Ed25519 verification of its last op and the hash
    /// chain back to the op this replica already holds (a segment of ops it already holds, the
    /// very same, changes nothing and is not verified again). Ops above a gap wait as pending segments
    /// until the gap fills (within the junk caps); ops stamped more than the clock's drift bound
    /// ahead of this replica's clock are held until the clock gets there. Two segments of one
    /// author that disagree are a fork's proof: the author is frozen at the lowest sequence where
    /// the evidence disagrees, and both branches are kept. Ingest is idempotent and
    /// order-insensitive: any order, duplication or split of the same ops ends in the same state.
    ///
    /// Work is committed in transactions of about `ingestTransactionBudget` each, as the
    /// replica's `IngestClock` measures it, so a local write waits for at most one of them.
    @discardableResult
    public func ingest(_ segments: [AuthorSegment]) throws -> IngestReport {
        try ingest(segments, finally: { _ in () }).report
    }

    /// Ingests `segments` (`ingest(_:)`) and reads the version vector on the writer's connection
    /// straight after the last commit, before any other write: what `versionVector()` would
    /// read, without a reader's connection, which after a commit rereads the pages the commit
    /// changed, and reading again only the authors changed since the last such read while no
    /// other connection committed (`WriterVector`). A connection answers each bundle it ingests
    /// with what it now holds (docs/sync-protocol.md, "Live changes across processes").
    package func ingestReadingVector(_ segments: [AuthorSegment]) throws -> (report: IngestReport, vector: VersionVector) {
        let (report, vector) = try ingest(segments, finally: writerVector.vector)
        return (report, vector)
    }

    /// Ingests `segments` in transactions of about `ingestTransactionBudget` by `ingestClock`,
    /// which pauses between two (`ingestPause`); `last` reads on the writer's connection after
    /// the last one commits.
    private func ingest<Read>(_ segments: [AuthorSegment], finally last: (Database) throws -> Read) throws -> (
        report: IngestReport, read: Read
    ) {
        var report = IngestReport()
        var read: Read?
        let chains = SegmentChain.hashing(segments)
        defer { for chain in chains { chain.abandon() } }
        var next = 0
        repeat {
            if next > 0 { ingestClock.pause(for: Self.ingestPause) }  // a waiting writer gets the lock
            try write { db in
                let started = ingestClock.reading()
                let now = clock.nowMilliseconds()
                var newest = HLCTimestamp.zero
                let asideBefore = report.segmentsPending + report.segmentsHeld
                if next == 0 { report += try Self.releaseHeldSegments(now: now, local: author, policies, newest: &newest, db) }
                while next < segments.count {
                    report += try Self.ingestInSavepoint(chains[next], now: now, local: author, policies, newest: &newest, db)
                    next += 1
                    if ingestClock.reading() - started >= Self.ingestTransactionBudget { break }
                }
                // The caps can only be passed by what this transaction set aside.
                if report.segmentsPending + report.segmentsHeld > asideBefore { try JunkLimits.enforce(db) }
                try Self.settleMembership(&report, policies.registers, db)
                if newest > .zero {
                    var hlc = try Self.loadClock(db)
                    hlc.observe(newest, nowMilliseconds: now)
                    try Self.saveClock(hlc, db)
                }
            } afterCommit: { db in
                if next == segments.count { read = try last(db) }
            }
        } while next < segments.count
        guard let read else { preconditionFailure("the last transaction reads") }
        return (report, read)
    }

    /// One segment, all or nothing: a refused segment is rolled back and reported.
    private static func ingestInSavepoint(
        _ chain: SegmentChain, now: UInt64, local: AuthorID, _ policies: ReplicaPolicies, newest: inout HLCTimestamp,
        _ db: Database
    ) throws -> IngestReport {
        var report = IngestReport()
        do {
            try db.inSavepoint {
                report = try ingest(chain, now: now, local: local, policies, newest: &newest, db)
                return .commit
            }
        } catch let error as IngestError {
            report.rejected.append(error)
        }
        return report
    }

    private static func ingest(
        _ chain: SegmentChain, now: UInt64, local: AuthorID, _ policies: ReplicaPolicies, newest: inout HLCTimestamp,
        _ db: Database
    ) throws -> IngestReport {
        let segment = chain.segment
        try segment.checkHeader()
        var report = IngestReport()
        var row = try AuthorRow.find(segment.author, in: db)
        let head = row?.headSequence ?? 0
        // Ops this replica already holds, the very same (the last hash is the held one's, and
        // each hash covers the ops before it), change nothing: their signature is not checked
        // again. Relayed copies of what a device already has are most of what a group sends.
        if let held = row, segment.lastSequence <= head,
            try held.hash(of: segment.lastSequence, in: db) == chain.hash(at: chain.count - 1)
        {
            report.opsAlreadyHeld = chain.count
            return report
        }
        // A segment that extends the head is stored while its chain is still being hashed, and
        // its signature checked before its savepoint is released; every other one first.
        if segment.firstSequence != head + 1 { try chain.verifySignature() }
        if segment.author == local, segment.lastSequence > head {
            // Ops of this replica's own key that it never wrote: another copy of this store
            // (restored from a backup, or copied) writes too. Writing on would fork the log.
            try Meta.set(.writtenElsewhere, [1], in: db)
        }

        if segment.firstSequence > head + 1 {
            guard row?.frozenAt ?? 0 == 0 else { return report }  // nothing above a frozen head can lower its fork point
            guard policies.pending.keeps(segment) else { return report }
            // Keyed by content too: two branches of a fork over one range both wait, and the
            // fork is found when the gap fills.
            try store(segment, in: "pendingSegments", db)
            report.segmentsPending = 1
            return report
        }

        // Everything this replica already holds must be the very same ops: the lowest sequence
        // where the segment and the held log disagree is a fork point.
        if var held = row, let conflict = try lowestConflict(chain, held, db) {
            try chain.verifySignature()
            guard held.frozenAt == 0 || conflict < held.frozenAt else {
                report.opsAlreadyHeld = chain.count
                return report  // evidence of a fork above the one already known changes nothing
            }
            try recordFork(&held, at: conflict, chain, policies.registers, db)
            report.rejected.append(.fork(author: held.key, sequence: conflict))
            report.membershipTouched = true  // its admissions above the fork point stop counting
            return report
        }

        if row == nil, let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }),
            GroupMembership.isOrganizer(segment.author, of: group)
        {
            report.membershipTouched = true  // the organizer's first ops: membership starts to hold
        }
        var author = try row ?? AuthorRow.findOrCreate(segment.author, in: db)
        report.opsAlreadyHeld = segment.firstSequence > head ? 0 : Int(min(segment.lastSequence, head) - segment.firstSequence + 1)
        guard segment.lastSequence > head else { return report }
        let fresh = Int(head + 1 - segment.firstSequence)..<chain.count

        // An op stamped beyond what this clock accepts waits, whole segment and all, until the
        // clock gets there (only the segment's last op carries the signature a head needs).
        let lastStamp = OpTail(segment.tails[chain.count - 1]).clock
        if author.frozenAt == 0, let stamp = lastStamp,
            stamp.physicalMilliseconds > now.addingClamped(HybridLogicalClock.maximumDriftMilliseconds)
        {
            try chain.verifySignature()
            guard policies.pending.keeps(segment) else { return report }
            try store(segment, in: "heldSegments", releaseAt: stamp.physicalMilliseconds - HybridLogicalClock.maximumDriftMilliseconds, db)
            report.segmentsHeld = 1
            return report
        }

        // Stamps strictly increase along a log: the first op that breaks this freezes its author
        // there, as a fork does, identically on every replica holding the log.
        var previousStamp = try author.tail(of: head, in: db).flatMap { OpTail($0).clock } ?? .zero
        // A removed device's ops above what the organizer held of it are kept (every replica
        // then holds the same log) but never count.
        let removedThrough = try Self.removedThrough(segment.author, db)
        if let removedThrough, segment.lastSequence > removedThrough {
            report.rejected.append(.removedMember(author: segment.author, through: removedThrough))
        }
        var sink = OpSink()
        var rebuild = false
        var appendedBytes = 0
        for offset in fresh {
            let op = chain.op(at: offset)
            let stamp = op.clock ?? .zero
            if author.frozenAt == 0, op.sequence > 1, stamp <= previousStamp {
                try author.freeze(at: op.sequence, forked: false, in: db)
                report.membershipTouched = true
            }
            previousStamp = max(previousStamp, stamp)
            try author.append(op, to: &sink, db)
            appendedBytes += op.tail.count
            if Membership.touches(op) { report.membershipTouched = true }
            if author.frozenAt == 0, op.sequence <= removedThrough ?? .max, !author.stranger {
                if try Materializer.apply(op, authorRow: author.id, policies.registers, db) { rebuild = true }
                report.opsApplied += 1
                if op.finishesRound { report.finishesApplied += 1 }
            }
        }
        // Nothing of the segment counts unless its last op is signed by its author.
        try chain.verifySignature()
        try sink.flush(db)
        // The segment's last op is signed: it covers the previous head's signature.
        try author.coverSignatures(previousHead: head, appendedBytes: appendedBytes, db)
        try author.saveHead(in: db)
        report.appendedAuthors.insert(segment.author)
        if rebuild { try Materializer.rebuild(db, policies.registers) }
        if report.opsApplied > 0, let clock = lastStamp, clock > newest { newest = clock }
        row = author

        // A filled gap releases the segments waiting above it, one at a time and each on its
        // own: a waiting segment that is refused (a fork, say) does not undo the ops before it.
        while let pending = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT \(SetAsideSegment.Column.selection) FROM pendingSegments
                    WHERE author = ? AND firstSequence <= (SELECT headSequence + 1 FROM authors WHERE key = ?)
                    ORDER BY firstSequence, digest LIMIT 1
                    """),
            arguments: [segment.author, segment.author])
        {
            try SetAsideSegment(row: pending).delete(from: .pending, db)
            guard let stored = try SetAsideSegment.segment(pending) else { continue }
            report += try ingestInSavepoint(SegmentChain.hashing([stored])[0], now: now, local: local, policies, newest: &newest, db)
        }
        return report
    }

    /// The lowest sequence number at which `segment` and the held log carry different
    /// authenticated hashes (the segment authenticates its previous hash too), or `nil`.
    /// Hash chains make disagreement monotone, so a binary search finds it.
    private static func lowestConflict(_ chain: SegmentChain, _ row: AuthorRow, _ db: Database) throws -> UInt64? {
        let low = chain.segment.firstSequence - 1
        let high = min(chain.segment.lastSequence, row.headSequence)
        guard low <= high else { return nil }
        func differs(_ sequence: UInt64) throws -> Bool { try row.hash(of: sequence, in: db) != chain.hash(ofSequence: sequence) }
        guard try differs(high) else { return nil }
        var (agree, disagree) = (low, high)  // invariant: `disagree` differs; `agree` agrees unless it is `low`
        if try differs(low) { return low }
        while disagree - agree > 1 {
            let middle = agree + (disagree - agree) / 2
            if try differs(middle) { disagree = middle } else { agree = middle }
        }
        return disagree
    }

    /// Freezes `row`'s author at the fork point `sequence`, keeps the segment that proves it
    /// (only the lowest proof per author is kept: it alone decides), and rebuilds the views when
    /// ops that now no longer count had changed them.
    private static func recordFork(
        _ row: inout AuthorRow, at sequence: UInt64, _ chain: SegmentChain, _ registers: RegisterRule, _ db: Database
    ) throws {
        let otherHash = chain.hash(ofSequence: sequence)
        try db.cachedStatement(sql: "DELETE FROM forks WHERE author = ?").execute(arguments: [Data(row.key.bytes)])
        try db.cachedStatement(
            sql: "INSERT INTO forks (author, sequence, heldHash, otherHash, otherSegment) VALUES (?, ?, ?, ?, ?)"
        ).execute(
            arguments: [
                Data(row.key.bytes), Int64(sequence), Data(try row.hash(of: sequence, in: db) ?? []),
                Data(otherHash), Data(chain.segment.encoded()),
            ])
        let previous = row.frozenAt == 0 ? row.headSequence + 1 : row.frozenAt
        try row.freeze(at: sequence, forked: true, in: db)
        let changedViews =
            try Bool.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT EXISTS (SELECT 1 FROM ops o WHERE o.author = ? AND o.sequence >= ? AND o.sequence < ? AND NOT \(Schema.anyScore))"
                ),
                arguments: [row.id, Int64(sequence), Int64(previous)]) ?? false
        if changedViews { try Materializer.rebuild(db, registers) }
    }

    /// Keeps `segment` aside in `table` (pending above a gap, or held until `releaseAt`).
    private static func store(_ segment: AuthorSegment, in table: String, releaseAt: UInt64? = nil, _ db: Database) throws {
        let encoded = segment.encoded()
        var values: [any DatabaseValueConvertible] = [
            Data(segment.author.bytes), Int64(segment.firstSequence), Int64(segment.lastSequence),
            Data(Blake2b.hash256(encoded)), Data(encoded),
        ]
        var columns = "author, firstSequence, lastSequence, digest, segment"
        if let releaseAt {
            columns += ", releaseAt"
            values.append(Int64(clamping: releaseAt))
        }
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(table) (\(columns)) VALUES (\(placeholders))").execute(
            arguments: StatementArguments(values))
    }

    /// Applies the held segments whose stamps this clock now accepts.
    private static func releaseHeldSegments(
        now: UInt64, local: AuthorID, _ policies: ReplicaPolicies, newest: inout HLCTimestamp, _ db: Database
    ) throws -> IngestReport {
        var report = IngestReport()
        let due = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(SetAsideSegment.Column.selection) FROM heldSegments WHERE releaseAt <= ?
                    ORDER BY author, firstSequence, digest
                    """),
            arguments: [Int64(clamping: now)])
        for row in due {
            try SetAsideSegment(row: row).delete(from: .held, db)
            guard let segment = try SetAsideSegment.segment(row) else { continue }
            report += try ingestInSavepoint(SegmentChain.hashing([segment])[0], now: now, local: local, policies, newest: &newest, db)
        }
        return report
    }

    /// Recomputes the members when an op that can change them arrived (the views rebuild when
    /// someone's standing changed), and reports the authors of newly added ops that are no
    /// members, once, after the whole transaction: an admission later in the same bundle counts.
    static func settleMembership(_ report: inout IngestReport, _ registers: RegisterRule, _ db: Database) throws {
        if report.membershipTouched { try Membership.refresh(db, registers) }
        report.membershipTouched = false
        for author in report.appendedAuthors.sorted() where try AuthorRow.find(author, in: db)?.stranger == true {
            report.rejected.append(.notAMember(author: author))
        }
        report.appendedAuthors = []
    }

    /// Applies held segments that the clock now accepts; local writes call it first, so a held
    /// op never lands after a local op that the user wrote later.
    func releaseHeldSegments(now: UInt64, _ db: Database) throws {
        var newest = HLCTimestamp.zero
        var report = try Self.releaseHeldSegments(now: now, local: author, policies, newest: &newest, db)
        try Self.settleMembership(&report, policies.registers, db)
        if newest > .zero {
            var hlc = try Self.loadClock(db)
            hlc.observe(newest, nowMilliseconds: now)
            try Self.saveClock(hlc, db)
        }
    }

    /// The last op of `device` that counts, when the group's organizer removed it.
    static func removedThrough(_ device: AuthorID, _ db: Database) throws -> UInt64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT through FROM removals WHERE device = ?"), arguments: [Data(device.bytes)]).map {
            UInt64($0)
        }
    }
}

extension UInt64 {
    /// `self + other`, or `UInt64.max` where that would overflow.
    func addingClamped(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension SignedOp {
    /// Whether the op finishes a round, read from its kind byte without decoding it.
    fileprivate var finishesRound: Bool {
        parts.isKind(.roundFinished) || parts.isKind(.roundFinishedCovering)
    }
}
