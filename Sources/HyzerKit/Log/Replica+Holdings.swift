import Foundation
import GRDB
import HyzerDomain

/// What a replica holds or holds aside, for a live connection's anti-entropy
/// (docs/sync-protocol.md, "Live connections heal").
public struct Holdings: Sendable, Equatable {
    /// The store's version vector, each live author's sequence raised through the segments set
    /// aside (above a gap, or held for the clock) that continue it without a gap: a peer need
    /// not send those ops again.
    public let vector: VersionVector
    /// Whether the tables of segments set aside are below every junk cap (docs/store.md, "Junk
    /// caps"): a replica at a cap would evict what it is sent, so it does not ask for it yet.
    public let hasRoomAside: Bool

    /// Holdings from their parts.
    public init(vector: VersionVector, hasRoomAside: Bool) {
        self.vector = vector
        self.hasRoomAside = hasRoomAside
    }
}

extension Replica {
    /// What this replica holds or holds aside. Reads the version vector first, which applies
    /// held ops whose time has come (docs/store.md, "Held ops").
    public func holdings() throws -> Holdings {
        try releaseDueHeldSegments()
        return try read { db in try readCache.holdings(db) { stored in try Self.holdings(above: stored, db) } }
    }

    /// The holdings of the snapshot `db` reads, whose version vector is `stored`.
    static func holdings(above stored: VersionVector, _ db: Database) throws -> Holdings {
        var entries = stored.entries
        // Per table, as the caps count (`JunkLimits.enforce`): 0 pending, 1 held.
        var segments = [0, 0]
        var bytes = [0, 0]
        var perAuthor: [AuthorID: (segments: Int, bytes: Int)] = [:]
        var perHeldAuthor: [AuthorID: (segments: Int, bytes: Int)] = [:]
        try db.cachedStatement(
            sql: """
                SELECT author, firstSequence, lastSequence, length(segment), 0 FROM pendingSegments
                UNION ALL SELECT author, firstSequence, lastSequence, length(segment), 1 FROM heldSegments
                ORDER BY 1, 2
                """
        ).forEachRawRow(db) { row in
            guard let author = row.bytes(0).flatMap(AuthorID.init(bytes:)) else { return }
            let size = Int(clamping: row.int64(3))
            let table = row.int64(4) == 0 ? 0 : 1
            segments[table] += 1
            bytes[table] += size
            if table == 0 {
                perAuthor[author, default: (0, 0)].segments += 1
                perAuthor[author, default: (0, 0)].bytes += size
            } else {
                perHeldAuthor[author, default: (0, 0)].segments += 1
                perHeldAuthor[author, default: (0, 0)].bytes += size
            }
            let first = UInt64(clamping: row.int64(1))
            let last = UInt64(clamping: row.int64(2))
            let entry = entries[author] ?? VersionVector.Entry(sequence: 0)
            // A frozen author's other branch is proof, not ops to count as held.
            guard entry.frozenAt == nil, first <= entry.sequence &+ 1, last > entry.sequence else { return }
            entries[author] = VersionVector.Entry(sequence: last)
        }
        let caps = JunkLimits.caps
        let room =
            segments.allSatisfy { $0 < caps.segments } && bytes.allSatisfy { $0 < caps.bytes }
            && (Array(perAuthor.values) + Array(perHeldAuthor.values)).allSatisfy {
                $0.segments < caps.segmentsPerAuthor && $0.bytes < caps.bytesPerAuthor
            }
        return Holdings(vector: VersionVector(entries: entries), hasRoomAside: room)
    }
}
