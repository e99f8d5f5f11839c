import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// Completed rounds' history entries and played cards kept between runs, so that `history` and
/// the stats cost a lookup per unchanged round instead of evaluating it from its ops
/// (docs/store.md, "The history cache").
///
/// A row holds one round's entry (standings included) and its `PlayedRound` (or neither when the
/// round has finish ops but no valid finish), the players they depend on, and a fingerprint of everything the entry is
/// derived from. The rows are current as of the author heads in `historyCacheHeads`: the ops
/// appended since then say which rounds and players they touch, and a row is used only when none
/// of its inputs was touched. Whatever the cache holds, `history` returns the same bytes as an
/// evaluation from the ops, and `verify` recomputes every row it would use.
enum HistoryCache {
    /// One round's row, encoded as stored.
    struct CachedRow: Equatable {
        /// BLAKE2b-256 of the entry's inputs (`fingerprint(...)`).
        var fingerprint: [UInt8]
        /// The registered players among the participants, 16 bytes each: their names are inputs.
        var players: [UInt8]
        /// The organizer, when a registered player: who owns it decides the valid finish.
        var organizer: [UInt8]?
        /// The encoded `CompletedRound`; `nil` when the round has no valid finish.
        var entry: [UInt8]?
        /// The encoded `PlayedRound`; `nil` when the round has no valid finish.
        var played: [UInt8]?

        subscript(value: Value) -> [UInt8]? {
            switch value {
            case .entry: entry
            case .played: played
            }
        }
    }

    /// The encoded value of a row that a lookup reads (it reads no other).
    enum Value: String {
        case entry, played
    }

    /// What `lookup` found: a value per completed round, and what to store when anything was
    /// recomputed.
    struct Lookup<Decoded> {
        var values: [Decoded] = []
        var update: Update?
    }

    /// Rows to store and the heads they are current at, valid only over the heads they were read at.
    struct Update {
        let base: [Int64: Int64]
        let heads: [Int64: Int64]
        var rows: [UUID: CachedRow]

        /// Stores the rows unless another process refreshed the cache since `base` was read.
        func store(_ db: Database) throws {
            guard try HistoryCache.cachedHeads(db) == base else { return }
            for (round, row) in rows {
                try db.cachedStatement(
                    sql: """
                        INSERT OR REPLACE INTO historyCache (round, fingerprint, players, organizer, entry, played)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    round.data, Data(row.fingerprint), Data(row.players), row.organizer.map { Data($0) }, row.entry.map { Data($0) },
                    row.played.map { Data($0) },
                ])
            }
            try db.execute(sql: "DELETE FROM historyCacheHeads")
            for (author, head) in heads {
                try db.cachedStatement(sql: "INSERT INTO historyCacheHeads (author, headSequence) VALUES (?, ?)").execute(arguments: [
                    author, head,
                ])
            }
        }
    }

    /// Every completed round of the snapshot `db`, for `history`, from the cache where its rows
    /// still hold; without standings unless asked.
    static func lookup(_ db: Database, standings: Bool, merge: MergeRule) throws -> Lookup<CompletedRound> {
        try lookup(db, .entry, merge: merge) { try decode($0, standings: standings) }
    }

    /// Every completed round's cards of the snapshot `db`, for the stats, from the cache where
    /// its rows still hold.
    static func played(_ db: Database, merge: MergeRule) throws -> Lookup<PlayedRound> {
        var recent: [String] = []
        var participants: [ParticipantID] = []
        return try lookup(db, .played, merge: merge) { try decodePlayed($0, reusing: &recent, participants: &participants) }
    }

    /// The `value` of every completed round of the snapshot `db`, decoded, from the cache where
    /// its rows still hold. One pass over the finished rounds beside their rows, each row's bytes
    /// read in place: only the value is copied, to decode it.
    private static func lookup<Decoded>(
        _ db: Database, _ value: Value, merge: MergeRule, decode: ([UInt8]) throws -> Decoded
    ) throws -> Lookup<Decoded> {
        let state = try State(db)
        var lookup = Lookup<Decoded>()
        var rows: [UUID: CachedRow] = [:]
        var ownership: Ownership?
        let reader = ViewReader(db: db)
        // Read in place (`withUnsafeData`): the stats read every finished round's row.
        let finished = try Row.fetchCursor(
            db,
            sql: """
                SELECT finished.round, cached.round IS NOT NULL, cached.players, cached.organizer, cached.\(value.rawValue)
                FROM (SELECT DISTINCT round FROM roundFinishes) AS finished
                LEFT JOIN historyCache AS cached ON cached.round = finished.round
                """)
        while let row = try finished.next() {
            guard let id = try row.withUnsafeData(atIndex: Finished.round.rawValue, { $0.flatMap { UUID(bytes: $0) } }) else { continue }
            if try row.value(Finished.isCached), try state.trusts(id, row) {
                // A row of a round with no valid finish has no value.
                guard let bytes = try row.withUnsafeData(atIndex: Finished.value.rawValue, { $0.map { [UInt8]($0) } }) else { continue }
                if let decoded = try? decode(bytes) {
                    lookup.values.append(decoded)
                    continue
                }
            }
            if ownership == nil { ownership = try reader.ownership() }
            guard let computed = try compute(reader, id, ownership: ownership!, merge: merge) else { continue }
            rows[id] = computed
            if let bytes = computed[value] { lookup.values.append(try decode(bytes)) }
        }
        if !rows.isEmpty || state.base != state.heads {
            lookup.update = Update(base: state.base, heads: state.heads, rows: rows)
        }
        return lookup
    }

    /// The rounds whose cached rows `history` would use but that differ from rows recomputed
    /// from the log (for `verify`).
    static func mismatches(_ db: Database, _ merge: MergeRule) throws -> [UUID] {
        let state = try State(db)
        let reader = ViewReader(db: db)
        let ownership = try reader.ownership()
        var rows: [UUID: CachedRow] = [:]
        enum Column: Int, CaseIterable { case round, fingerprint, players, organizer, entry, played }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Column.selection) FROM historyCache")) {
            rows[try row.value(Column.round)] = CachedRow(
                fingerprint: try row.bytes(Column.fingerprint), players: try row.bytes(Column.players),
                organizer: try row.optionalBytes(Column.organizer), entry: try row.optionalBytes(Column.entry),
                played: try row.optionalBytes(Column.played))
        }
        return try rows.keys.sorted(by: UUID.precedes).filter { id in
            guard let row = rows[id], state.trusts(id, players: row.players, organizer: row.organizer) else { return false }
            return try compute(reader, id, ownership: ownership, merge: merge) != row
        }
    }

    /// The cache's heads, the store's heads, and what the ops appended since touched.
    private struct State {
        var base: [Int64: Int64] = [:]
        var heads: [Int64: Int64] = [:]
        /// Whether no row can be trusted (no heads stored, or a change that touches every round).
        var everything = false
        /// Rounds that gained a start, score or finish op.
        var rounds: Set<UUID> = []
        /// Players created or renamed.
        var names: Set<UUID> = []
        /// Players created or linked to a device.
        var owners: Set<UUID> = []

        init(_ db: Database) throws {
            base = try HistoryCache.cachedHeads(db)
            // A frozen author (docs/store.md, "Forks") stands in the heads as its negated row id
            // with its fork point: a freeze changes views without appending an op, so any change
            // of fork state discards the whole cache (forks are rare).
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT id AS author, headSequence FROM authors UNION ALL SELECT -id, frozenAt FROM authors WHERE frozenAt > 0"))
            {
                heads[try row.value(Head.author)] = try row.value(Head.headSequence)
            }
            guard !base.isEmpty else {
                everything = true
                return
            }
            for (author, cached) in base where (heads[author] ?? 0) < cached { everything = true }
            guard !everything else { return }
            for (author, head) in heads where author < 0 && head != base[author] { everything = true }
            guard !everything else { return }
            for (author, head) in heads where author > 0 && head > base[author] ?? 0 {
                let ops = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT hash, tail FROM ops WHERE author = ? AND sequence > ? ORDER BY sequence"),
                    arguments: [author, base[author] ?? 0])
                while let op = try ops.next() {
                    touch(
                        hash: Array(try op.decode(Data.self, forColumn: "hash")), tail: OpTail(try op.decode(Data.self, forColumn: "tail")))
                }
            }
        }

        /// Notes what one appended op touches; an op that cannot be decoded changes no view.
        private mutating func touch(hash: [UInt8], tail: OpTail<Data>) {
            if tail.isKind(.scoreRecorded) {
                if let round = tail.scoredRound { rounds.insert(round) }
                return
            }
            guard let payload = tail.decodedPayload else { return }
            switch payload {
            case .roundStarted: rounds.insert(UUID(hashPrefix: hash))
            case .roundFinished(let round, _), .roundFinishedCovering(let round, _, _): rounds.insert(round)
            case .playerCreated:
                names.insert(UUID(hashPrefix: hash))
                owners.insert(UUID(hashPrefix: hash))
            case .playerRenamed(let player, _): names.insert(player)
            case .deviceLinked(_, let player): owners.insert(player)
            case .deviceSucceeded: everything = true  // the successor owns what its predecessor owned: rare, so start over
            case .memberRemoved: everything = true  // a removed device's later ops stop counting: rare, so start over
            case .inviteIssued, .memberAdmitted, .memberAdmittedWithProof, .inviteIssuedWithVerifier:
                everything = true  // an admission makes a device's ops count (docs/security.md, "Membership"): rare, so start over
            case .deviceRegistered, .courseCreated, .courseRenamed, .holeParSet, .courseDeleted, .scoreRecorded, .playerAliasAdded,
                .roundReceipt, .courseHolesSet, .groupRekeyed, .roundImported:
                break
            }
        }

        /// Whether the cached row of `round` (its players in column 2, its organizer in column
        /// 3 of `row`) holds: nothing it depends on was touched since it was stored.
        func trusts(_ round: UUID, _ row: Row) throws -> Bool {
            try row.withUnsafeData(atIndex: Finished.players.rawValue) { players in
                try row.withUnsafeData(atIndex: Finished.organizer.rawValue) { organizer in
                    trusts(round, players: players ?? Data(), organizer: organizer)
                }
            }
        }

        /// Whether the cached row of `round`, with these players (16 bytes each) and organizer,
        /// holds: nothing it depends on was touched since it was stored.
        func trusts(_ round: UUID, players: some Collection<UInt8>, organizer: (some Collection<UInt8>)?) -> Bool {
            guard !everything, !rounds.contains(round) else { return false }
            if names.isEmpty && owners.isEmpty { return true }
            if let organizer = organizer.flatMap({ UUID(bytes: $0) }), names.contains(organizer) || owners.contains(organizer) {
                return false
            }
            var players = players[...]
            while players.count >= 16 {
                if let player = UUID(bytes: players.prefix(16)), names.contains(player) { return false }
                players = players.dropFirst(16)
            }
            return true
        }
    }

    /// The columns of a head: an author's row id and its head's sequence number.
    private enum Head: Int, CaseIterable { case author, headSequence }

    /// The columns `lookup` reads of each finished round: its id, whether a cached row exists,
    /// what the row depends on, and the value asked for.
    private enum Finished: Int { case round, isCached, players, organizer, value }

    static func cachedHeads(_ db: Database) throws -> [Int64: Int64] {
        var heads: [Int64: Int64] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Head.selection) FROM historyCacheHeads")) {
            heads[try row.value(Head.author)] = try row.value(Head.headSequence)
        }
        return heads
    }

    /// Evaluates `id` from its ops: the row to cache. `nil` when the round's start op is not here.
    private static func compute(_ reader: ViewReader, _ id: UUID, ownership: Ownership, merge: MergeRule) throws -> CachedRow? {
        guard let round = try reader.round(id) else { return nil }
        let events = try reader.events(round: id)
        let finishes = try reader.finishes(round: id)
        let evaluation = RoundEvaluation(round: round, events: events, finishes: finishes, ownership: ownership, merge: merge)
        return CachedRow(
            fingerprint: fingerprint(round, events, finishes, owners: ownership.owners[round.organizerID] ?? []),
            players: round.participants.compactMap(\.id.player?.uuid).flatMap(\.bytes),
            organizer: round.organizerID.player?.uuid.bytes,
            entry: History.completed(round, evaluation).map(encode), played: PlayedRound(evaluation).map(encode))
    }

    /// BLAKE2b-256 of every input of a round's entry: the round (its id is its start op's),
    /// its score ops' ids, its finishes, its participants' names, and the organizer's owners.
    static func fingerprint(_ round: Round, _ events: [ScoreEvent], _ finishes: [RoundFinish], owners: Set<AuthorID>) -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + events.count * 16)
        writer.write(raw: Array("hyzer-peer history cache v1".utf8))
        writer.write(round.id)
        writer.writeVarint(UInt64(events.count))
        for id in events.map(\.id).sorted(by: UUID.precedes) { writer.write(id) }
        writer.writeVarint(UInt64(finishes.count))
        let finishBytes = finishes.map { finish in
            var bytes = ByteWriter()
            bytes.write(finish.deviceID)
            bytes.write(finish.createdAt)
            bytes.write(finish.force)
            return bytes.bytes
        }
        for finish in finishBytes.sorted(by: { $0.lexicographicallyPrecedes($1) }) { writer.write(raw: finish) }
        writer.writeVarint(UInt64(round.participants.count))
        for participant in round.participants {
            writer.write(participant.id)
            writer.write(participant.name)
        }
        let sortedOwners = owners.map(\.bytes).sorted { $0.lexicographicallyPrecedes($1) }
        writer.writeVarint(UInt64(sortedOwners.count))
        for owner in sortedOwners { writer.write(raw: owner) }
        return Blake2b.hash256(writer.bytes)
    }

    // MARK: Encoding

    private static let textMaximum = 4096
    private static let countMaximum = 10_000

    static func encode(_ completed: CompletedRound) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        let entry = completed.entry
        writer.write(completed.round)
        writer.write(completed.finishedAt)
        writer.write(entry.round.description)
        writer.write(entry.course)
        writer.write(entry.finishedAt)
        writer.write(entry.startedAt)
        writer.write(integer: entry.players)
        writer.writeVarint(UInt64(entry.winners.count))
        for winner in entry.winners { writer.write(winner) }
        let standings = entry.standings ?? []
        writer.writeVarint(UInt64(standings.count))
        for line in standings {
            writer.write(integer: line.position)
            writer.write(line.playerID)
            writer.write(line.name)
            writer.write(integer: line.totalStrokes)
            writer.write(integer: line.holesPlayed)
            writer.write(integer: line.relativeToPar)
            writer.write(line.formatted)
            writer.write(integer: line.disputedHoles)
        }
        return writer.bytes
    }

    /// The completed round `bytes` encode; without standings unless asked (they are last).
    static func decode(_ bytes: [UInt8], standings: Bool) throws -> CompletedRound {
        var reader = ByteReader(bytes)
        let round = try reader.readUUID()
        let finishedAt = try reader.readTimestamp()
        _ = try reader.readString(maximumBytes: textMaximum)  // the round's id as text: `round` already
        var entry = HistoryEntry(
            round: RoundID(round), course: try reader.readString(maximumBytes: textMaximum),
            finishedAt: try reader.readUInt64(), startedAt: try reader.readUInt64(), players: try reader.readInteger(),
            winners: [], standings: nil)
        for _ in 0..<(try reader.readCount(maximum: countMaximum)) {
            entry.winners.append(try reader.readString(maximumBytes: textMaximum))
        }
        if standings {
            var lines: [StandingsEntry] = []
            for _ in 0..<(try reader.readCount(maximum: countMaximum)) {
                lines.append(
                    StandingsEntry(
                        position: try reader.readInteger(), playerID: try reader.readParticipantID(),
                        name: try reader.readString(maximumBytes: textMaximum), totalStrokes: try reader.readInteger(),
                        holesPlayed: try reader.readInteger(), relativeToPar: try reader.readInteger(),
                        formatted: try reader.readString(maximumBytes: textMaximum), disputedHoles: try reader.readInteger()))
            }
            try reader.expectEnd()
            entry.standings = lines
        }
        return CompletedRound(entry: entry, round: round, finishedAt: finishedAt)
    }
}

extension ByteWriter {
    fileprivate mutating func write(integer value: Int) { write(UInt64(bitPattern: Int64(value))) }
}

extension ByteReader {
    fileprivate mutating func readInteger() throws(ByteDecodingError) -> Int { Int(Int64(bitPattern: try readUInt64())) }
}
