import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    /// Appends a new op of this replica to its log, signed, with the next sequence number and
    /// a fresh clock reading, and updates the views, all inside the caller's transaction.
    @discardableResult
    func append(_ payload: OpPayload, in db: Database) throws -> SignedOp {
        let now = clock.nowMilliseconds()
        try releaseHeldSegments(now: now, db)
        var row = try AuthorRow.findOrCreate(author, in: db)
        if let through = try Self.removedThrough(author, db) {
            throw ReplicaError.removedFromGroup(through: through)
        }
        // A store that continued a device the organizer removed is removed with it.
        for (predecessor, _) in try Self.predecessorKeys(db) {
            if let through = try Self.removedThrough(predecessor, db) { throw ReplicaError.removedFromGroup(through: through) }
        }
        if try row.frozenAt > 0 || Meta.get(.writtenElsewhere, in: db) != nil {
            throw ReplicaError.writtenElsewhere(author: author.short, forkedAt: row.frozenAt == 0 ? nil : row.frozenAt)
        }
        var hlc = try Self.loadClock(db)
        let clockReading = hlc.tick(nowMilliseconds: now)
        try Self.saveClock(hlc, db)
        let op = SignedOp(
            keys: keys, author: author, sequence: row.headSequence + 1, previousHash: row.headHash,
            clock: clockReading, payload: payload)
        var sink = OpSink()
        let previousHead = row.headSequence
        try row.append(op, to: &sink, db)
        let rebuild = row.stranger ? false : try Materializer.apply(op, authorRow: row.id, policies.registers, db)
        try sink.flush(db)
        try row.coverSignatures(previousHead: previousHead, appendedBytes: op.tail.count, db)
        try row.saveHead(in: db)
        if rebuild { try Materializer.rebuild(db, policies.registers) }
        if Membership.touches(op) { try Membership.refresh(db, policies.registers) }
        return op
    }

    static func loadClock(_ db: Database) throws -> HybridLogicalClock {
        guard let bytes = try Meta.get(.clock, in: db) else { return HybridLogicalClock() }
        var reader = ByteReader(bytes)
        return HybridLogicalClock(latest: (try? reader.readTimestamp()) ?? .zero)
    }

    static func saveClock(_ hlc: HybridLogicalClock, _ db: Database) throws {
        var writer = ByteWriter()
        writer.write(hlc.latest)
        try Meta.set(.clock, writer.bytes, in: db)
    }

    /// For each author, the highest sequence number held with no gap below it, the first bytes
    /// of that op's hash, and the fork point of a frozen author.
    ///
    /// Every sync starts here, so held segments that this clock now accepts are applied first:
    /// an idle replica that only syncs still takes them in once their time comes.
    public func versionVector() throws -> VersionVector {
        let now = clock.nowMilliseconds()
        // One snapshot answers both questions in the usual case, when nothing held is due; and
        // nothing is read again while nothing committed since the last read (`StoreReadCache`).
        let kept = try read { db in try readCache.entry(db) }
        guard kept.releaseIsDue(now: now) else { return kept.vector }
        try write { db in try releaseHeldSegments(now: now, db) }
        return try read { db in try readCache.entry(db) }.vector
    }

    /// Applies the held segments this clock now accepts, if any (a write only then), and says
    /// whether there were: what a read of the vector does first, for a caller that needs no vector.
    @discardableResult
    public func releaseDueHeldSegments() throws -> Bool {
        let now = clock.nowMilliseconds()
        guard try read({ db in try readCache.entry(db) }).releaseIsDue(now: now) else { return false }
        try write { db in try releaseHeldSegments(now: now, db) }
        return true
    }

    /// The earliest time a held segment is released at, if any is held.
    static func nextRelease(_ db: Database) throws -> UInt64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT min(releaseAt) FROM heldSegments")).map { UInt64(clamping: $0) }
    }

    static func versionVector(_ db: Database) throws -> VersionVector {
        var entries: [AuthorID: VersionVector.Entry] = [:]
        try db.cachedStatement(sql: "\(vectorColumns) WHERE headSequence > 0").forEachRawRow(db) { row in
            guard let (author, entry) = vectorEntry(row) else { return }
            entries[author] = entry
        }
        return VersionVector(entries: entries)
    }

    /// The `authors` columns a vector's entry is made of (the hash's prefix alone: an entry
    /// keeps no more), read by `vectorEntry`.
    static let vectorColumns =
        "SELECT key, headSequence, substr(headHash, 1, \(VersionVector.Entry.hashPrefixBytes)), frozenAt FROM authors"
    /// The columns whose change changes a vector.
    static let vectorColumnNames: Set<String> = ["key", "headSequence", "headHash", "frozenAt"]

    /// An author's entry from a row of `vectorColumns`.
    static func vectorEntry(_ row: RawRow) -> (AuthorID, VersionVector.Entry)? {
        guard let author = row.bytes(0).flatMap(AuthorID.init(bytes:)) else { return nil }
        let frozenAt = UInt64(clamping: row.int64(3))
        return (author, .init(sequence: UInt64(clamping: row.int64(1)), hashPrefix: row.bytes(2), frozenAt: frozenAt == 0 ? nil : frozenAt))
    }

    /// What a peer holding `vector` lacks, one or more segments per author, in author order:
    /// - a live author: the ops above the peer's entry, or the whole log when the peer's entry
    ///   names another op at its sequence (two branches: the peer finds the fork point);
    /// - a frozen author, unless the peer is frozen at the same point or lower: the fork's
    ///   evidence, the held log from its first op and the stored other branch.
    /// A peer that holds more of a live author than this replica, or is frozen where this
    /// replica is live, gets nothing: it sends the evidence itself.
    ///
    /// An author's run is cut at the last op that carries a signature within `segmentBytesMax`
    /// bytes of tails (at the first past them when none lies within), so a long log travels as
    /// several segments (and bundles) that a receiver can take one at a time. Signature
    /// compaction keeps a signature at least every `AuthorRow.anchorBytesMax` bytes of an
    /// author's log, but for a segment received larger (docs/store.md).
    public func delta(above vector: VersionVector, segmentBytesMax: Int = AuthorSegment.preferredBytesMax) throws -> [AuthorSegment] {
        try read { db in try delta(above: vector, segmentBytesMax: segmentBytesMax, db) }
    }

    /// What a peer holding `vector` lacks (`delta(above:segmentBytesMax:)`) with what a
    /// connection checks beside it, read from one snapshot (`LogDelta`): a connection answers a
    /// change of the store with one read, and the vector is exactly what the segments bring the
    /// peer up to. Unlike `versionVector()`, it applies no held segment: it says whether one is due.
    public func deltaRead(above vector: VersionVector, segmentBytesMax: Int = AuthorSegment.preferredBytesMax) throws -> LogDelta {
        let now = clock.nowMilliseconds()
        return try read { db in
            let kept = try readCache.entry(db)
            return try deltaRead(
                above: vector, segmentBytesMax: segmentBytesMax, held: kept.vector, releaseDue: kept.releaseIsDue(now: now), db)
        }
    }

    /// `deltaRead(above:segmentBytesMax:)` on the writer's connection straight after one of its
    /// commits (`StoreChangeMonitor.report(_:)`), whose pages are still in its cache: a reader's
    /// first read after a commit reads them again (docs/performance.md, "Live changes").
    ///
    /// The commit's thread waits for it, so it reads only a small delta: nil, having read nothing
    /// more, when the store holds more than `opsMax` ops above `vector` or an author's fork state
    /// differs from it. Outside a transaction, each statement reads the store as it then is: nil
    /// too when another connection committed between them, so a delta and its vector always come
    /// from one state.
    public func deltaRead(
        above vector: VersionVector, segmentBytesMax: Int = AuthorSegment.preferredBytesMax, opsMax: UInt64, after commit: WriterCommit
    ) throws -> LogDelta? {
        let db = commit.db
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
        let held = try writerVector.vector(db)
        var ops: UInt64 = 0
        for (author, entry) in held.entries {
            let peer = vector.entry(author)
            guard entry.frozenAt == peer?.frozenAt else { return nil }
            let (more, overflow) = ops.addingReportingOverflow(entry.sequence - min(entry.sequence, peer?.sequence ?? 0))
            guard !overflow, more <= opsMax else { return nil }
            ops = more
        }
        let releaseDue = try Self.nextRelease(db).map { $0 <= clock.nowMilliseconds() } ?? false
        let delta = try deltaRead(above: vector, segmentBytesMax: segmentBytesMax, held: held, releaseDue: releaseDue, db)
        return try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) == version ? delta : nil
    }

    private func deltaRead(
        above vector: VersionVector, segmentBytesMax: Int, held: VersionVector, releaseDue: Bool, _ db: Database
    ) throws -> LogDelta {
        let segments = try delta(above: vector, segmentBytesMax: segmentBytesMax, db)
        var removed: Set<AuthorID> = []
        try db.cachedStatement(sql: "SELECT device FROM removals").forEachRawRow(db) { row in
            if let device = row.bytes(0).flatMap(AuthorID.init(bytes:)) { removed.insert(device) }
        }
        return LogDelta(segments: segments, vector: held, removed: removed, releaseDue: releaseDue)
    }

    private func delta(above vector: VersionVector, segmentBytesMax: Int, _ db: Database) throws -> [AuthorSegment] {
        do {
            var segments: [AuthorSegment] = []
            // Read from the statement as it steps (a cursor): no row is copied.
            let authors = try Row.fetchCursor(db.cachedStatement(sql: AuthorRow.withLogQuery)).map(AuthorRow.init(row:))
            while let authorRow = try authors.next() {
                let key = authorRow.key
                let head = authorRow.headSequence
                let frozenAt = authorRow.frozenAt
                let peer = vector.entry(key)
                let from: UInt64
                if frozenAt > 0 {
                    if let peerFork = peer?.frozenAt, peerFork <= frozenAt { continue }
                    from = 1
                } else if let peer {
                    guard peer.frozenAt == nil, peer.sequence <= head else { continue }
                    // A peer at our head (the usual case) is checked against the head's hash in
                    // the row at hand: one query per author with news, not one per author.
                    if let prefix = peer.hashPrefix,
                        try
                            (peer.sequence == head
                            ? authorRow.headHash
                            : headHashes.hash(of: key, at: peer.sequence) ?? Self.hash(authorRow.id, peer.sequence, db))
                            .map({ Array($0.prefix(prefix.count)) }) != prefix
                    {
                        from = 1
                    } else {
                        guard peer.sequence < head else { continue }
                        from = peer.sequence + 1
                    }
                } else {
                    from = 1
                }
                let reader = ViewReader(db: db)
                guard policies.delta.carries(key, author, { try? reader.deviceKind($0) }) else { continue }
                segments += try Self.segments(
                    of: key, row: authorRow.id, from: from, previousHash: from > 1 ? headHashes.hash(of: key, at: from - 1) : nil,
                    bytesMax: segmentBytesMax, db, directory: directory)
                headHashes.record(key, head: head, hash: authorRow.headHash)
                if frozenAt > 0,
                    let proof = try Data.fetchOne(
                        db.cachedStatement(sql: "SELECT otherSegment FROM forks WHERE author = ? ORDER BY sequence LIMIT 1"),
                        arguments: [Data(key.bytes)]),
                    let other = try? AuthorSegment(decoding: Array(proof))
                {
                    segments.append(other)
                }
            }
            return segments
        }
    }

    /// The stored hash of op `sequence`: its first 16 bytes at least (`StoredHash`).
    private static func hash(_ row: Int64, _ sequence: UInt64, _ db: Database) throws -> [UInt8]? {
        try Data.fetchOne(
            db.cachedStatement(sql: "SELECT hash FROM ops WHERE author = ? AND sequence = ?"), arguments: [row, Int64(sequence)]
        ).map {
            Array($0)
        }
    }

    /// The held ops of `key` from `first` to its head, as segments that each end at a signed op:
    /// a segment ends at the last signed op within `bytesMax` bytes of tails, or, when none lies
    /// within, at the first signed op past them (signature compaction keeps one at least every
    /// `AuthorRow.anchorBytesMax` bytes, so that overshoot is bounded); a signed rekey or removal
    /// op ends its segment too. The last ends at the head op, which is always signed. `previousHash` is
    /// the whole hash of op `first - 1`, when known.
    static func segments(
        of key: AuthorID, row: Int64, from first: UInt64, through last: UInt64 = UInt64(Int64.max), previousHash: [UInt8]? = nil,
        bytesMax: Int, _ db: Database, directory: URL
    ) throws -> [AuthorSegment] {
        // Unless known, the whole hash of op `first - 1` is rebuilt from the checkpoint below it,
        // read in the same range (`StoredHash`); a signed op, where a segment is cut, keeps its
        // whole hash.
        let before = first - 1
        let from = previousHash == nil ? before - before % StoredHash.checkpointInterval : first
        let ops = try LoggedOp.range(author: row, from: from, through: last, db)
        var cutter = SegmentCutter(author: key, first: first, bytesMax: bytesMax)
        if let previousHash { cutter.previousHash = previousHash }
        var previous = SignedOp.noPreviousHash
        while let op = try ops.next() {
            if op.sequence <= before {
                previous =
                    op.storedHash.count == previous.count
                    ? op.storedHash : SignedOp.hash(author: key, sequence: op.sequence, previousHash: previous, tail: op.tail)
                if op.sequence == before { cutter.previousHash = previous }
                continue
            }
            cutter.add(tail: op.tail, hash: op.storedHash, signature: op.signature)
        }
        // The head op always carries its signature (docs/store.md, invariants).
        guard let segments = cutter.finish() else {
            throw ReplicaError.corruptStore(path: directory.path, detail: "author \(key.short)'s head op has no signature")
        }
        return segments
    }

    /// `author`'s log from its first op through `last`, as segments. Empty unless this replica
    /// holds all of it and op `last` carries the author's signature: a head, an anchor, a rekey
    /// or a removal op does (signature compaction drops the others, docs/store.md).
    public func log(of author: AuthorID, through last: UInt64) throws -> [AuthorSegment] {
        try read { db in
            guard let row = try AuthorRow.find(author, in: db), last >= 1, last <= row.headSequence,
                try Data.fetchOne(
                    db.cachedStatement(sql: "SELECT signature FROM ops WHERE author = ? AND sequence = ?"),
                    arguments: [row.id, Int64(last)])
                    != nil
            else { return [] }
            return try Self.segments(
                of: author, row: row.id, from: 1, through: last, bytesMax: AuthorSegment.preferredBytesMax, db, directory: directory)
        }
    }

    /// A hash of the state views derive from: equal on two replicas exactly when they count the
    /// same ops. Per author, in key order, `key ‖ counted:u64 ‖ hash of op counted ‖ frozen:u8`,
    /// where `counted` is the head of a live author and the op below the fork point of a frozen
    /// one: the hash chain commits to the whole counted log, and the fork state is part of it.
    public func digest() throws -> String {
        try read { db in try Self.digest(db) }
    }

    static func digest(_ db: Database) throws -> String {
        var writer = ByteWriter()
        let authors = try Row.fetchCursor(db.cachedStatement(sql: AuthorRow.withLogQuery)).map(AuthorRow.init(row:))
        while let author = try authors.next() {
            writer.write(raw: author.key.bytes)
            if author.frozenAt == 0 {
                writer.write(author.headSequence)
                writer.write(raw: author.headHash)
            } else {
                writer.write(author.frozenAt - 1)
                let counted = try StoredHash.whole(of: author.frozenAt - 1, author: author.key, row: author.id, db)
                writer.write(raw: counted ?? SignedOp.noPreviousHash)
            }
            writer.write(UInt8(author.frozenAt == 0 ? 0 : 1))
        }
        return Hex.encode(Blake2b.hash256(writer.bytes))
    }
}
