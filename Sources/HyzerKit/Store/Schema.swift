import Foundation
import GRDB
import HyzerDomain

/// The store's tables, created by versioned migrations (docs/store.md).
///
/// The log tables (`authors`, `ops`, `pendingSegments`, `forks`) are the replica's state.
/// The view tables (`registers`, `players`, `courses`, `rounds`, `roundFinishes`,
/// `deviceLinks`) and the index `opsByScoredRound` are derived from the log, maintained in each op's
/// transaction, and rebuilt from the log by `verify`. `historyCache` and `historyCacheHeads`
/// keep completed rounds' history entries and full cards between runs (`HistoryCache`).
enum Schema {
    static let viewTables = [
        "registers", "players", "courses", "rounds", "roundFinishes", "deviceLinks", "deviceSuccessions", "removals", "rekeys",
    ]

    /// The condition that selects score ops of a round through `opsByScoredRound`, which holds
    /// `scoredRoundPrefix`: bind `roundArguments(round)` (the prefix, then the whole id).
    static let scoreOfRound = "\(anyScore) AND o.scoredRoundPrefix = ? AND o.scoredRound = ?"

    /// The values `scoreOfRound` binds for `round`.
    static func roundArguments(_ round: UUID) -> StatementArguments {
        [Data(round.bytes.prefix(OpLayout.scoredRoundPrefixBytes)), Data(round.bytes)]
    }
    /// The condition that selects every score op (as `opsByScoredRound`'s own condition reads,
    /// so that SQLite can use the index).
    static let anyScore = "o.kind = \(OpPayload.Kind.scoreRecorded.sqlLiteral)"

    /// The condition that an op `o` is of one of `kinds`: literals, which SQLite can match
    /// against an index's condition, as it cannot a bound value.
    static func opKind(in kinds: [OpPayload.Kind]) -> String {
        "o.kind IN (\(kinds.map(\.sqlLiteral).joined(separator: ", ")))"
    }

    /// The op columns derived from each op's tail where `OpLayout` says its parts lie: virtual,
    /// computed as they are read, so they add no byte to a row. `kind` is the payload's kind byte
    /// (a one-byte blob); `scoredRound` a score's round id and `scoredRoundPrefix` its first
    /// bytes, which `opsByScoredRound` keeps (both NULL for any other op). Every query reads an
    /// op's parts through them; none reads the tail by offset.
    static let opColumns = {
        let kind = "substr(tail, \(OpLayout.kindOffset + 1), 1)"
        let score = OpPayload.Kind.scoreRecorded.sqlLiteral
        func scoredRound(_ bytes: Int) -> String {
            "CASE WHEN \(kind) = \(score) THEN substr(tail, \(OpLayout.scoredRoundOffset + 1), \(bytes)) END"
        }
        return """
            ALTER TABLE ops ADD COLUMN kind BLOB GENERATED ALWAYS AS (\(kind)) VIRTUAL;
            ALTER TABLE ops ADD COLUMN scoredRound BLOB GENERATED ALWAYS AS (\(scoredRound(OpLayout.roundIDBytes))) VIRTUAL;
            ALTER TABLE ops ADD COLUMN scoredRoundPrefix BLOB
                GENERATED ALWAYS AS (\(scoredRound(OpLayout.scoredRoundPrefixBytes))) VIRTUAL;
            DROP INDEX opsByScoredRound;
            CREATE INDEX opsByScoredRound ON ops(scoredRoundPrefix) WHERE kind = \(score);
            """
    }()

    /// The migrations; one that rebuilds the views applies `registers`.
    static func migrator(_ registers: RegisterRule) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID;

                    CREATE TABLE authors (
                        id INTEGER PRIMARY KEY,
                        key BLOB NOT NULL UNIQUE,
                        headSequence INTEGER NOT NULL DEFAULT 0,
                        headHash BLOB NOT NULL,
                        forked INTEGER NOT NULL DEFAULT 0
                    );

                    CREATE TABLE ops (
                        author INTEGER NOT NULL REFERENCES authors(id),
                        sequence INTEGER NOT NULL,
                        hash BLOB NOT NULL,
                        tail BLOB NOT NULL,
                        signature BLOB,
                        PRIMARY KEY (author, sequence)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER opsRefuseUpdate BEFORE UPDATE ON ops
                        BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;
                    CREATE TRIGGER opsRefuseDelete BEFORE DELETE ON ops
                        BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;

                    CREATE TABLE pendingSegments (
                        author BLOB NOT NULL,
                        firstSequence INTEGER NOT NULL,
                        lastSequence INTEGER NOT NULL,
                        digest BLOB NOT NULL,
                        segment BLOB NOT NULL,
                        PRIMARY KEY (author, firstSequence, lastSequence, digest)
                    ) WITHOUT ROWID;

                    CREATE TABLE forks (
                        author BLOB NOT NULL,
                        sequence INTEGER NOT NULL,
                        heldHash BLOB NOT NULL,
                        otherHash BLOB NOT NULL,
                        otherSegment BLOB NOT NULL,
                        PRIMARY KEY (author, sequence)
                    ) WITHOUT ROWID;

                    CREATE TABLE registers (
                        entity BLOB NOT NULL,
                        field TEXT NOT NULL,
                        value BLOB NOT NULL,
                        stamp BLOB NOT NULL,
                        PRIMARY KEY (entity, field)
                    ) WITHOUT ROWID;

                    CREATE TABLE players (
                        id BLOB PRIMARY KEY NOT NULL,
                        creator BLOB NOT NULL,
                        createdMilliseconds INTEGER NOT NULL,
                        createdCounter INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE courses (
                        id BLOB PRIMARY KEY NOT NULL,
                        holeCount INTEGER NOT NULL,
                        seeded INTEGER NOT NULL,
                        createdMilliseconds INTEGER NOT NULL,
                        createdCounter INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE deviceLinks (
                        player BLOB NOT NULL,
                        device BLOB NOT NULL,
                        linkedBy BLOB NOT NULL,
                        sequence INTEGER NOT NULL,
                        PRIMARY KEY (player, device, linkedBy, sequence)
                    ) WITHOUT ROWID;

                    CREATE TABLE rounds (
                        id BLOB PRIMARY KEY NOT NULL,
                        author INTEGER NOT NULL,
                        sequence INTEGER NOT NULL,
                        stamp BLOB NOT NULL
                    ) WITHOUT ROWID;

                    -- A round's score events, found through an index on the log itself: in format v1
                    -- a score op's tail is clock (12 bytes) ‖ kind 10 ‖ round id (16 bytes) ‖ …, so
                    -- the index is derived from the log alone and SQLite keeps it in the op's
                    -- transaction, at a fraction of the cost of a second row per event.
                    CREATE INDEX opsByScoredRound ON ops(substr(tail, 14, 16)) WHERE substr(tail, 13, 1) = x'0a';

                    CREATE TABLE roundFinishes (
                        round BLOB NOT NULL,
                        author INTEGER NOT NULL,
                        sequence INTEGER NOT NULL,
                        PRIMARY KEY (round, author, sequence)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2-sync-records") { db in
            // Bookkeeping of transports (files already imported, bundles written): not ops,
            // never synced, safe to lose.
            try db.execute(
                sql: """
                    CREATE TABLE syncRecords (
                        scope TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value BLOB NOT NULL,
                        PRIMARY KEY (scope, key)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3-forks-clocks-junk") { db in
            // `frozenAt`: the fork point of a forked author (0 while live); no op at or above it
            // counts in views. `heldSegments`: segments stamped too far ahead of this replica's
            // clock, applied once the clock reaches `releaseAt` (docs/store.md).
            try db.execute(
                sql: """
                    ALTER TABLE authors ADD COLUMN frozenAt INTEGER NOT NULL DEFAULT 0;
                    UPDATE authors SET frozenAt = COALESCE((SELECT MIN(sequence) FROM forks WHERE forks.author = authors.key), 0);

                    CREATE TABLE heldSegments (
                        author BLOB NOT NULL,
                        firstSequence INTEGER NOT NULL,
                        lastSequence INTEGER NOT NULL,
                        digest BLOB NOT NULL,
                        segment BLOB NOT NULL,
                        releaseAt INTEGER NOT NULL,
                        PRIMARY KEY (author, firstSequence, lastSequence, digest)
                    ) WITHOUT ROWID;
                    CREATE INDEX heldSegmentsByRelease ON heldSegments(releaseAt);

                    -- Validly signed successions (op kind 15): a view, like deviceLinks.
                    CREATE TABLE deviceSuccessions (
                        predecessor BLOB NOT NULL,
                        successor BLOB NOT NULL,
                        signature BLOB NOT NULL,
                        PRIMARY KEY (predecessor, successor)
                    ) WITHOUT ROWID;

                    -- A log whose stamps stop increasing is frozen at the first op that breaks the
                    -- order, as ingest now does (stamps compare as bytes: milliseconds ‖ counter).
                    UPDATE authors SET frozenAt = (
                        SELECT MIN(s.sequence) FROM (
                            SELECT o.author, o.sequence, substr(o.tail, 1, 12) AS stamp,
                                LAG(substr(o.tail, 1, 12)) OVER (PARTITION BY o.author ORDER BY o.sequence) AS previous
                            FROM ops o) s
                        WHERE s.author = authors.id AND s.stamp <= s.previous)
                    WHERE EXISTS (
                        SELECT 1 FROM ops o1 JOIN ops o2 ON o2.author = o1.author AND o2.sequence = o1.sequence + 1
                        WHERE o1.author = authors.id AND substr(o2.tail, 1, 12) <= substr(o1.tail, 1, 12)
                            AND (authors.frozenAt = 0 OR o2.sequence < authors.frozenAt));

                    -- Folder sync's cached vectors are in the version 1 layout: read them again.
                    DELETE FROM syncRecords WHERE key LIKE 'vector:%';
                    """)
            // Stores that held a forked author's ops in their views drop them now.
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM authors WHERE frozenAt > 0)")) == true {
                try Materializer.rebuild(db, registers)
            }
        }
        migrator.registerMigration("v4-history-cache") { db in
            // Completed rounds' history entries, keyed by round and checked against the ops
            // appended since the author heads they are current at (docs/store.md, "The history
            // cache"). Not ops, never synced, safe to lose; `verify` recomputes the rows.
            try db.execute(
                sql: """
                    CREATE TABLE historyCache (
                        round BLOB PRIMARY KEY NOT NULL,
                        fingerprint BLOB NOT NULL,
                        players BLOB NOT NULL,
                        organizer BLOB,
                        entry BLOB
                    ) WITHOUT ROWID;
                    CREATE TABLE historyCacheHeads (
                        author INTEGER PRIMARY KEY,
                        headSequence INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v5-history-cache-played") { db in
            // Each row also keeps the round's full cards, which the stats read (docs/store.md,
            // "The history cache"). Rows written before have none: the cache starts over, and the
            // next `history` or `stats` fills it again.
            try db.execute(
                sql: """
                    ALTER TABLE historyCache ADD COLUMN played BLOB;
                    DELETE FROM historyCache;
                    DELETE FROM historyCacheHeads;
                    """)
        }
        migrator.registerMigration("v6-removals-rekeys") { db in
            // Devices the group's organizer removed (op kind 17): a view, like deviceLinks. No op
            // of `device` above `through` counts (docs/security.md, "Removing a member"). Like
            // the organizer's rekeys (kind 18), a view derived from the log.
            try db.execute(
                sql: """
                    CREATE TABLE removals (
                        device BLOB PRIMARY KEY NOT NULL,
                        through INTEGER NOT NULL,
                        remover BLOB NOT NULL
                    ) WITHOUT ROWID;

                    -- The organizer's rekeys (op kind 18): each epoch's secret sealed to each
                    -- recipient's key. Only the recipient opens its row (Replica.group()).
                    CREATE TABLE rekeys (
                        epoch INTEGER NOT NULL,
                        recipient BLOB NOT NULL,
                        sealed BLOB NOT NULL,
                        PRIMARY KEY (epoch, recipient)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v7-membership") { db in
            // In a group with an organizer, only admitted devices are members (docs/security.md,
            // "Membership"): `members` keeps the set (empty while the organizer is not known:
            // then every author counts), and `stranger` marks every other author, whose ops
            // count nowhere. Both are derived from the log.
            try db.execute(
                sql: """
                    ALTER TABLE authors ADD COLUMN stranger INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE members (device BLOB PRIMARY KEY NOT NULL) WITHOUT ROWID;
                    """)
            try Membership.refresh(db, registers)
        }
        migrator.registerMigration(compactionMigration) { db in
            // Signature compaction (docs/store.md): a later signed op of an author proves every
            // earlier one through the hash chain, so an op's signature may be dropped (set to
            // NULL) once a later signed op of its author is stored — and nothing else may change.
            // `anchorSequence` and `anchorBytes` say where the author's last kept signature below
            // the head lies and how many bytes of tails lie above it (`AuthorRow.coverSignatures`).
            try db.execute(
                sql: """
                    ALTER TABLE authors ADD COLUMN anchorSequence INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE authors ADD COLUMN anchorBytes INTEGER NOT NULL DEFAULT 0;
                    DROP TRIGGER opsRefuseUpdate;
                    CREATE TRIGGER opsRefuseUpdate BEFORE UPDATE ON ops
                        WHEN NEW.author IS NOT OLD.author OR NEW.sequence IS NOT OLD.sequence OR NEW.hash IS NOT OLD.hash
                            OR NEW.tail IS NOT OLD.tail OR NEW.signature IS NOT NULL
                        BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;
                    -- The later signed op is looked for from the author's last op down: the head, at once
                    -- (upwards from OLD, a run of ops received in one segment would be read row by row).
                    CREATE TRIGGER opsKeepCoveringSignature BEFORE UPDATE OF signature ON ops
                        WHEN NOT EXISTS (
                            SELECT 1 FROM (
                                SELECT o.sequence FROM ops o
                                WHERE o.author = OLD.author AND o.sequence > OLD.sequence AND o.signature IS NOT NULL
                                ORDER BY o.sequence DESC LIMIT 1))
                        BEGIN SELECT RAISE(ABORT, 'a signature is dropped only when a later signed op of its author covers it'); END;
                    """)
            try compactStoredSignatures(db)
        }
        migrator.registerMigration("v9-score-index-prefix") { db in
            // A round's score ops are found through the first 3 bytes of its id (16.7 million
            // values: a store's rounds rarely share one, and queries check the whole id): 13 bytes
            // less in the index for every score event.
            try db.execute(
                sql: """
                    DROP INDEX opsByScoredRound;
                    CREATE INDEX opsByScoredRound ON ops(substr(tail, 14, 3)) WHERE substr(tail, 13, 1) = x'0a';
                    """)
        }
        migrator.registerMigration(hashCheckpointsMigration) { db in
            // Hash checkpoints (docs/store.md): an op that carries no signature keeps the first 16
            // bytes of its hash, but for every 64th op of a log (`StoredHash`); its whole hash is
            // rebuilt along the chain from the checkpoint below. The one update compaction may
            // make to a hash is that cut, and never on a checkpoint.
            try db.execute(
                sql: """
                    DROP TRIGGER opsRefuseUpdate;
                    CREATE TRIGGER opsRefuseUpdate BEFORE UPDATE ON ops
                        WHEN NEW.author IS NOT OLD.author OR NEW.sequence IS NOT OLD.sequence OR NEW.tail IS NOT OLD.tail
                            OR NEW.signature IS NOT NULL
                            OR (NEW.hash IS NOT OLD.hash AND (NEW.hash IS NOT substr(OLD.hash, 1, 16) OR OLD.sequence % 64 = 0))
                        BEGIN SELECT RAISE(ABORT, 'the op log is append-only'); END;
                    UPDATE ops SET hash = substr(hash, 1, 16) WHERE signature IS NULL AND sequence % 64 != 0 AND length(hash) > 16;
                    """)
        }
        migrator.registerMigration(scoreIndexTwoBytesMigration) { db in
            // 2 bytes of the round id (65,536 values; a round's query also compares the whole id,
            // so rounds sharing them only read each other's index entries): one byte less in the
            // index for every score event.
            try db.execute(
                sql: """
                    DROP INDEX opsByScoredRound;
                    CREATE INDEX opsByScoredRound ON ops(substr(tail, 14, 2)) WHERE substr(tail, 13, 1) = x'0a';
                    """)
        }
        migrator.registerMigration(opColumnsMigration) { db in
            // The op's parts as columns (`opColumns`), and the score index on them: the same
            // index entries as before, under a name every query can use.
            try db.execute(sql: opColumns)
        }
        return migrator
    }

    /// The migration that derives the op columns from each op's tail.
    static let opColumnsMigration = "v12-op-columns"
    /// The migration that brought signature compaction.
    static let compactionMigration = "v8-signature-compaction"
    /// The migration that brought hash checkpoints.
    static let hashCheckpointsMigration = "v10-hash-checkpoints"
    /// The migration that keys the score index on 2 bytes of the round id.
    static let scoreIndexTwoBytesMigration = "v11-score-index-two-bytes"
    /// The migrations after which `Replica.open` vacuums the store once, so an upgraded store
    /// gives back on disk what they dropped: most signatures, most of the stored hashes, a byte
    /// of each score's index entry.
    static let shrinkingMigrations = [compactionMigration, hashCheckpointsMigration, scoreIndexTwoBytesMigration]

    /// Drops the signatures of live authors' held ops that compaction would have dropped had
    /// the ops been stored one signed run at a time, as they arrived (`AuthorRow.coverSignatures`),
    /// and records each author's anchor. Frozen authors keep theirs.
    private static func compactStoredSignatures(_ db: Database) throws {
        let drop = try db.makeStatement(sql: "UPDATE ops SET signature = NULL WHERE author = ? AND sequence = ?")
        let save = try db.makeStatement(sql: "UPDATE authors SET anchorSequence = ?, anchorBytes = ? WHERE id = ?")
        for author in try Int64.fetchAll(db, sql: "SELECT id FROM authors WHERE frozenAt = 0 AND headSequence > 0") {
            // Run before the op columns exist (`opColumnsMigration`): the kind is read from the tail.
            enum Column: Int { case sequence, bytes, signed, rekey }
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT sequence, length(tail), signature IS NOT NULL, substr(tail, \(OpLayout.kindOffset + 1), 1) IS x'12'
                    FROM ops WHERE author = ? ORDER BY sequence
                    """,
                arguments: [author])
            var anchor: Int64 = 0
            var anchorBytes = 0  // bytes above `anchor` through `head`
            var head: (sequence: Int64, rekey: Bool)?  // the last signed op so far
            var bytesAboveHead = 0
            var dropped: [Int64] = []
            while let row = try rows.next() {
                bytesAboveHead += try row.value(Column.bytes) as Int
                guard try row.value(Column.signed) else { continue }
                if let previous = head {
                    if previous.rekey || anchorBytes + bytesAboveHead > AuthorRow.anchorBytesMax {
                        anchor = previous.sequence
                        anchorBytes = bytesAboveHead
                    } else {
                        dropped.append(previous.sequence)
                        anchorBytes += bytesAboveHead
                    }
                } else {
                    anchorBytes += bytesAboveHead
                }
                head = (try row.value(Column.sequence), try row.value(Column.rekey))
                bytesAboveHead = 0
            }
            for sequence in dropped { try drop.execute(arguments: [author, sequence]) }
            try save.execute(arguments: [anchor, anchorBytes + bytesAboveHead, author])
        }
    }

    /// The condition (on `ops o` joined with `authors a`) that an op counts in views but for
    /// membership: its author is live, or the op lies below the author's fork point; and the
    /// organizer has not removed the author below it.
    static let countsButForMembership = """
        ((a.frozenAt = 0 OR o.sequence < a.frozenAt) \
        AND NOT EXISTS (SELECT 1 FROM removals r WHERE r.device = a.key AND o.sequence > r.through))
        """

    /// The condition that an op counts in views: as `countsButForMembership`, and its author is
    /// a member of the group (`Membership`).
    static let counts = "(a.stranger = 0 AND \(countsButForMembership))"
}

extension OpPayload.Kind {
    /// The kind byte as an SQL blob literal, as the `kind` column holds it (`x'0a'`).
    var sqlLiteral: String { String(format: "x'%02x'", rawValue) }
}
