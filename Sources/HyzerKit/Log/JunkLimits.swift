import Foundation
import GRDB

/// Caps on the segments a replica keeps aside (pending above a gap, or held until its clock
/// reaches their stamps), so that made-up authors and junk never pile up (docs/store.md).
///
/// Eviction is deterministic over what is kept: segments of authors with no op held go first,
/// then the highest `(author, first sequence, digest)`. An evicted segment is not lost for
/// good: it lies above the replica's version vector, so a new connection's hello or a folder
/// sync brings it again, and a live connection heals it at the next heartbeat once the replica
/// has room aside again (`Replica.holdings`, docs/sync-protocol.md, "Live connections heal").
enum JunkLimits {
    struct Caps {
        let segments: Int
        let bytes: Int
        let segmentsPerAuthor: Int
        let bytesPerAuthor: Int
    }

    static let caps = Caps(segments: 1_000, bytes: 16 * 1024 * 1024, segmentsPerAuthor: 256, bytesPerAuthor: 4 * 1024 * 1024)

    /// Evicts from `pendingSegments` and `heldSegments` whatever exceeds `caps`.
    static func enforce(_ db: Database, caps: Caps = caps) throws {
        enum Size: Int { case segments, bytes }
        for table in [SetAsideSegment.Table.pending, .held] {
            // Nothing to evict while the table and every author in it are within the caps.
            guard
                let totals = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*), COALESCE(SUM(length(segment)), 0) FROM \(table.rawValue)")),
                try (totals.value(Size.segments) as Int) > min(caps.segments, caps.segmentsPerAuthor)
                    || (totals.value(Size.bytes) as Int) > min(caps.bytes, caps.bytesPerAuthor)
            else { continue }
            if try (totals.value(Size.segments) as Int) <= caps.segments, try (totals.value(Size.bytes) as Int) <= caps.bytes,
                let largest = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT COALESCE(MAX(n), 0), COALESCE(MAX(b), 0)
                            FROM (SELECT COUNT(*) AS n, SUM(length(segment)) AS b FROM \(table.rawValue) GROUP BY author)
                            """)),
                try (largest.value(Size.segments) as Int) <= caps.segmentsPerAuthor,
                try (largest.value(Size.bytes) as Int) <= caps.bytesPerAuthor
            {
                continue
            }
            // Kept first: authors this replica holds ops of, then the lowest (author, sequence).
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT t.author, t.firstSequence, t.lastSequence, t.digest, length(t.segment),
                            EXISTS (SELECT 1 FROM authors a WHERE a.key = t.author AND a.headSequence > 0) AS known
                        FROM \(table.rawValue) t ORDER BY known DESC, t.author, t.firstSequence, t.digest
                        """))
            var kept = (segments: 0, bytes: 0)
            var perAuthor: [Data: (segments: Int, bytes: Int)] = [:]
            for row in rows {
                let key = try SetAsideSegment(row: row)
                let author = key.author
                let bytes: Int = try row.value(SetAsideSegment.Column.segment)  // its length, here
                var mine = perAuthor[author, default: (0, 0)]
                if kept.segments < caps.segments, kept.bytes + bytes <= caps.bytes,
                    mine.segments < caps.segmentsPerAuthor, mine.bytes + bytes <= caps.bytesPerAuthor
                {
                    kept.segments += 1
                    kept.bytes += bytes
                    mine.segments += 1
                    mine.bytes += bytes
                    perAuthor[author] = mine
                    continue
                }
                try key.delete(from: table, db)
            }
        }
    }
}
