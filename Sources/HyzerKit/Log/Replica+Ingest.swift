import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    /// Ingests segments of ops from other replicas, in one transaction.
    ///
    /// Each segment is all-or-nothing: one Ed25519 verification of its last op and the hash
    /// chain back to the op this replica already holds. Ops above a gap wait as pending segments
    /// until the gap fills; they are never dropped. Ingest is idempotent and order-insensitive:
    /// any order, duplication or split of the same ops ends in the same state.
    @discardableResult
    public func ingest(_ segments: [AuthorSegment]) throws -> IngestReport {
        try write { db in
            var report = IngestReport()
            var newest = HLCTimestamp.zero
            for segment in segments {
                do {
                    try db.inSavepoint {
                        report += try Self.ingest(segment, newest: &newest, db)
                        return .commit
                    }
                } catch let error as IngestError {
                    report.rejected.append(error)
                }
            }
            if newest > .zero {
                var hlc = try Self.loadClock(db)
                hlc.observe(newest, nowMilliseconds: clock.nowMilliseconds())
                try Self.saveClock(hlc, db)
            }
            return report
        }
    }

    private static func ingest(_ segment: AuthorSegment, newest: inout HLCTimestamp, _ db: Database) throws -> IngestReport {
        let ops = try segment.verifiedOps()
        var row = try AuthorRow.findOrCreate(segment.author, in: db)
        guard !row.forked else { throw IngestError.authorForked(author: segment.author) }
        var report = IngestReport()

        if segment.firstSequence > row.headSequence + 1, PlantedBug.active.contains(.ingestDropsGaps) {
            return report  // the planted bug: ops above a gap are lost
        }
        if segment.firstSequence > row.headSequence + 1 {
            // Keyed by content too: two branches of a fork over one range both wait, and the
            // fork is found when the gap fills.
            let encoded = segment.encoded()
            try db.execute(
                sql: "INSERT OR IGNORE INTO pendingSegments (author, firstSequence, lastSequence, digest, segment) VALUES (?, ?, ?, ?, ?)",
                arguments: [Data(segment.author.bytes), Int64(segment.firstSequence), Int64(segment.lastSequence),
                            Data(Blake2b.hash256(encoded)), Data(encoded)])
            report.segmentsPending = 1
            return report
        }

        // Everything this replica already holds must be the very same ops.
        let overlapEnd = min(segment.lastSequence, row.headSequence)
        if segment.firstSequence >= 2, segment.firstSequence - 1 <= row.headSequence,
            try row.hash(of: segment.firstSequence - 1, in: db) != segment.previousHash
        {
            return try recordFork(row: row, sequence: segment.firstSequence - 1, otherHash: segment.previousHash, segment: segment, db)
        }
        if segment.firstSequence <= overlapEnd {
            for sequence in segment.firstSequence...overlapEnd {
                let incoming = ops[Int(sequence - segment.firstSequence)]
                if try row.hash(of: sequence, in: db) != incoming.hash {
                    return try recordFork(row: row, sequence: sequence, otherHash: incoming.hash, segment: segment, db)
                }
                report.opsAlreadyHeld += 1
            }
        }

        var sink = OpSink()
        for op in ops where op.sequence > row.headSequence {
            // Only the last op of a segment keeps its signature; the chain covers the others.
            try row.append(op, to: &sink, db)
            try Materializer.apply(op, authorRow: row.id, db)
            report.opsApplied += 1
        }
        try sink.flush(db)
        try row.saveHead(in: db)
        if report.opsApplied > 0, let clock = ops[ops.count - 1].clock, clock > newest { newest = clock }

        // A filled gap releases the segments waiting above it, one at a time and each on its
        // own: a waiting segment that is refused (a fork, say) does not undo the ops before it.
        while true {
            guard let pending = try Row.fetchOne(
                db,
                sql: """
                    SELECT firstSequence, lastSequence, digest, segment FROM pendingSegments
                    WHERE author = ? AND firstSequence <= (SELECT headSequence + 1 FROM authors WHERE key = ?)
                    ORDER BY firstSequence, digest LIMIT 1
                    """,
                arguments: [Data(segment.author.bytes), Data(segment.author.bytes)])
            else { break }
            try db.execute(
                sql: "DELETE FROM pendingSegments WHERE author = ? AND firstSequence = ? AND lastSequence = ? AND digest = ?",
                arguments: [Data(segment.author.bytes), pending[0] as Int64, pending[1] as Int64, pending[2] as Data])
            guard let stored = try? AuthorSegment(decoding: Array(pending[3] as Data)) else { continue }
            do {
                try db.inSavepoint {
                    report += try ingest(stored, newest: &newest, db)
                    return .commit
                }
            } catch let error as IngestError {
                report.rejected.append(error)
            }
        }
        return report
    }

    /// Keeps the proof of a fork (both hashes and the other segment) and refuses the author
    /// from now on. Nothing of the forking segment is applied.
    private static func recordFork(
        row: AuthorRow, sequence: UInt64, otherHash: [UInt8], segment: AuthorSegment, _ db: Database
    ) throws -> IngestReport {
        try db.execute(
            sql: "INSERT OR IGNORE INTO forks (author, sequence, heldHash, otherHash, otherSegment) VALUES (?, ?, ?, ?, ?)",
            arguments: [Data(row.key.bytes), Int64(sequence), Data(try row.hash(of: sequence, in: db) ?? []),
                        Data(otherHash), Data(segment.encoded())])
        try row.markForked(in: db)
        var report = IngestReport()
        report.rejected.append(.fork(author: row.key, sequence: sequence))
        return report
    }
}
