import Foundation
import GRDB
import HyzerDomain

/// What a replica holds and knows.
public struct ReplicaStatus: Equatable, Sendable {
    /// This device's key, name, kind and owner.
    public let identity: ReplicaIdentity
    /// What the replica holds of each author.
    public let versionVector: VersionVector
    /// A hash of the counted ops (`Replica.digest()`): equal on two replicas exactly when their views are.
    public let digest: String
    /// Ops in the log, every author's.
    public let opCount: Int
    /// Ops waiting above a gap in their author's log, or held until this replica's clock
    /// reaches their stamps.
    public let pendingOps: Int
    /// Authors frozen by a fork's proof or a stamp that does not increase, with the evidence.
    public let forks: [FrozenAuthor]
    /// Segments waiting above a gap in their author's log.
    public let pendingSegments: Int
    /// Segments held because they are stamped too far ahead of this replica's clock.
    public let heldSegments: Int
    /// Whether another copy of this store wrote with its key, so that it refuses to write.
    public let writtenElsewhere: Bool
    /// Registered players.
    public let players: Int
    /// Courses not deleted, the seeded ones included.
    public let courses: Int
    /// Rounds started, in any state.
    public let rounds: Int
}

extension Replica {
    /// What the replica holds now, read in one transaction; throws `ReplicaError` when the store
    /// cannot be read.
    public func status() throws -> ReplicaStatus {
        let identity = try identity()
        return try read { db in
            let reader = ViewReader(db: db)
            let forks = try FrozenAuthor.all(db)
            let pendingOps = try Self.pendingOpCount(db)
            return ReplicaStatus(
                identity: identity, versionVector: try Self.versionVector(db), digest: try Self.digest(db),
                opCount: try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM ops")) ?? 0,
                pendingOps: pendingOps, forks: forks,
                pendingSegments: try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM pendingSegments")) ?? 0,
                heldSegments: try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM heldSegments")) ?? 0,
                writtenElsewhere: try Meta.get(.writtenElsewhere, in: db) != nil,
                players: try reader.players().count, courses: try reader.courses().filter { !$0.deleted }.count,
                rounds: try reader.roundIDs().count)
        }
    }
}

extension Replica {
    /// Bytes the store's database occupies (pages in use, indexes included, after a checkpoint).
    public func storeBytes() throws -> Int {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return (pages - free) * size
        }
    }
}

extension Replica {
    /// Ops waiting above a gap in their author's log or held for the clock (an upper bound
    /// when waiting segments overlap): cheap enough to ask after every sync.
    public func pendingOpCount() throws -> Int {
        try read { try Self.pendingOpCount($0) }
    }

    /// The highest sequence of `author` among the segments waiting above a gap or held for the
    /// clock, or 0 when none of its ops is set aside.
    public func highestSequenceAside(of author: AuthorID) throws -> UInt64 {
        try read { db in
            let highest = try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT MAX(lastSequence) FROM (
                            SELECT lastSequence FROM pendingSegments WHERE author = ?1
                            UNION ALL SELECT lastSequence FROM heldSegments WHERE author = ?1)
                        """), arguments: [Data(author.bytes)])
            return UInt64(clamping: highest ?? 0)
        }
    }

    /// Segments waiting above a gap, and segments held for the clock: what the junk caps bound
    /// (docs/security.md), cheap enough to ask after every sync.
    public func segmentsAside() throws -> (pending: Int, held: Int) {
        try read { db in
            (
                try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM pendingSegments")) ?? 0,
                try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM heldSegments")) ?? 0
            )
        }
    }

    static func pendingOpCount(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COALESCE(SUM(lastSequence - firstSequence + 1), 0)
                    FROM (SELECT firstSequence, lastSequence FROM pendingSegments UNION ALL SELECT firstSequence, lastSequence FROM heldSegments)
                    """)) ?? 0
    }
}
