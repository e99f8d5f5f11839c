import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// Keeps the view tables in step with the log. `apply` runs in the transaction that appends
/// each op; `rebuild` derives every view table from the log alone. Both are insensitive to the
/// order ops arrive in: registers keep the write the replica's `RegisterRule` prefers (the
/// greatest stamp), everything else is a set.
enum Materializer {
    /// Writes the seeded courses, below every op's stamp.
    static func seed(_ db: Database, _ registers: RegisterRule) throws {
        for course in SeededCourses.all {
            let id = Data(course.id.bytes)
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO courses (id, holeCount, seeded, createdMilliseconds, createdCounter) VALUES (?, ?, 1, 0, 0)"
            ).execute(
                arguments: [id, course.holeCount])
            try setRegister(id, "name", Data(course.name.utf8), stamp: Stamp.seed, registers, db)
            for (index, par) in course.pars.enumerated() {
                try setRegister(id, Register.par(index + 1), Data([UInt8(par)]), stamp: Stamp.seed, registers, db)
            }
        }
    }

    /// Applies one op of the log (already inserted in `ops`) to the view tables. An op whose payload cannot be decoded stays
    /// in the log and changes no view. Returns whether the op changes views beyond its own: a
    /// removal that discounts ops already applied, after which the caller rebuilds the views
    /// (once the op itself is in `ops`).
    @discardableResult
    static func apply(_ op: SignedOp, authorRow: Int64, _ registers: RegisterRule, _ db: Database) throws -> Bool {
        // Score ops are found through the log's own index; nothing to write (or decode) here.
        guard !op.parts.isKind(.scoreRecorded) else {
            return false
        }
        guard case .success(let payload) = op.payload(), let clock = op.clock else { return false }
        var stamp: [UInt8] { Stamp.bytes(clock: clock, author: op.author, sequence: op.sequence) }
        let entity = op.entityID.data
        switch payload {
        case .deviceRegistered(let name, let kind):
            let device = Data(op.author.bytes)
            try setRegister(device, "device.name", Data(name.utf8), stamp: stamp, registers, db)
            try setRegister(device, "device.kind", Data(kind.rawValue.utf8), stamp: stamp, registers, db)
        case .playerCreated(let displayName):
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO players (id, creator, createdMilliseconds, createdCounter) VALUES (?, ?, ?, ?)"
            ).execute(
                arguments: [entity, Data(op.author.bytes), Int64(bitPattern: clock.physicalMilliseconds), Int64(clock.counter)])
            try setRegister(entity, "name", Data(displayName.utf8), stamp: stamp, registers, db)
        case .playerRenamed(let playerID, let displayName):
            try setRegister(Data(playerID.bytes), "name", Data(displayName.utf8), stamp: stamp, registers, db)
        case .courseCreated(let name, let pars):
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO courses (id, holeCount, seeded, createdMilliseconds, createdCounter) VALUES (?, ?, 0, ?, ?)"
            ).execute(
                arguments: [entity, pars.count, Int64(bitPattern: clock.physicalMilliseconds), Int64(clock.counter)])
            try setRegister(entity, "name", Data(name.utf8), stamp: stamp, registers, db)
            for (index, par) in pars.enumerated() {
                try setRegister(entity, Register.par(index + 1), Data([UInt8(clamping: par)]), stamp: stamp, registers, db)
            }
        case .courseRenamed(let courseID, let name):
            try setRegister(Data(courseID.bytes), "name", Data(name.utf8), stamp: stamp, registers, db)
        case .holeParSet(let courseID, let hole, let par):
            try setRegister(Data(courseID.bytes), Register.par(hole), Data([UInt8(clamping: par)]), stamp: stamp, registers, db)
        case .courseDeleted(let courseID):
            try setRegister(Data(courseID.bytes), "deleted", Data([1]), stamp: stamp, registers, db)
        case .roundStarted:
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO rounds (id, author, sequence, stamp) VALUES (?, ?, ?, ?)").execute(
                arguments: [entity, authorRow, Int64(op.sequence), Data(stamp)])
        case .roundFinished(let roundID, _), .roundFinishedCovering(let roundID, _, _):
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO roundFinishes (round, author, sequence) VALUES (?, ?, ?)").execute(
                arguments: [Data(roundID.bytes), authorRow, Int64(op.sequence)])
        case .scoreRecorded:
            break
        case .deviceSucceeded(let predecessor, let signature):
            guard
                Ed25519.verify(
                    signature: signature, of: DeviceSuccession.message(successor: op.author), publicKey: predecessor.bytes)
            else { return false }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO deviceSuccessions (predecessor, successor, signature) VALUES (?, ?, ?)")
                .execute(
                    arguments: [Data(predecessor.bytes), Data(op.author.bytes), Data(signature)])
        case .deviceLinked(let device, let playerID):
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO deviceLinks (player, device, linkedBy, sequence) VALUES (?, ?, ?, ?)")
                .execute(
                    arguments: [Data(playerID.bytes), Data(device.bytes), Data(op.author.bytes), Int64(op.sequence)])
        case .courseHolesSet(let courseID, let holes):
            try setRegister(Data(courseID.bytes), "holeCount", Data([UInt8(clamping: holes)]), stamp: stamp, registers, db)
        case .memberRemoved(let device, let through):
            return try recordRemoval(of: device, through: through, by: op.author, db)
        case .groupRekeyed(let epoch, let sealed):
            guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }),
                GroupMembership.isOrganizer(op.author, of: group)
            else { return false }
            for (recipient, secret) in sealed {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO rekeys (epoch, recipient, sealed) VALUES (?, ?, ?)").execute(
                    arguments: [Int64(epoch), Data(recipient.bytes), Data(secret)])
            }
        case .playerAliasAdded, .roundReceipt, .roundImported, .inviteIssued, .memberAdmitted, .memberAdmittedWithProof,
            .inviteIssuedWithVerifier:
            break  // Read from the log itself (`ViewReader.aliases()`, `.receipts()`, `.importedDates()`), like score ops.
        }
        return false
    }

    /// Empties the view tables and derives them again from the seed and the ops that count: the
    /// whole log of a live author, and a frozen author's ops below its fork point. Removals come
    /// first, so that a removed device's later ops are skipped whatever the author order.
    static func rebuild(_ db: Database, _ registers: RegisterRule) throws {
        for table in Schema.viewTables { try db.execute(sql: "DELETE FROM \(table)") }
        try seed(db, registers)
        let removals = try StoredOp.fetchAll(
            db, where: "\(Schema.opKind(in: [.memberRemoved])) AND (a.frozenAt = 0 OR o.sequence < a.frozenAt)")
        for removal in removals {
            guard case .memberRemoved(let device, let through) = removal.payload else { continue }
            _ = try recordRemoval(of: device, through: through, by: removal.author, db)
        }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT o.author AS authorRow, a.key AS author, o.sequence, o.tail
                FROM ops o JOIN authors a ON a.id = o.author
                WHERE \(Schema.counts)
                ORDER BY o.author, o.sequence
                """)
        var previous: (row: Int64, hash: [UInt8]) = (-1, SignedOp.noPreviousHash)
        while let row = try rows.next() {
            let authorRow: Int64 = try row.decode(forColumn: "authorRow")
            if authorRow != previous.row { previous = (authorRow, SignedOp.noPreviousHash) }
            let op = SignedOp(
                author: try row.decode(forColumn: "author"), sequence: try row.decode(forColumn: "sequence"),
                previousHash: previous.hash, tail: Array(try row.decode(Data.self, forColumn: "tail")), signature: nil)
            previous.hash = op.hash
            _ = try apply(op, authorRow: authorRow, registers, db)
        }
    }

    /// Records that the group's organizer removed `device` through its op `through` (the lowest
    /// such cut stays); a removal signed by anyone else, or of the organizer itself, changes
    /// nothing. Returns whether ops of `device` that had counted in views (other than scores,
    /// which views read through `Schema.counts`) stop counting: the views must then be rebuilt.
    static func recordRemoval(of device: AuthorID, through: UInt64, by remover: AuthorID, _ db: Database) throws -> Bool {
        guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }),
            GroupMembership.isOrganizer(remover, of: group), device != remover
        else { return false }
        let key = Data(device.bytes)
        let previous = try Int64.fetchOne(db.cachedStatement(sql: "SELECT through FROM removals WHERE device = ?"), arguments: [key])
        guard previous.map({ Int64(through) < $0 }) ?? true else { return false }
        try db.cachedStatement(
            sql: """
                INSERT INTO removals (device, through, remover) VALUES (?, ?, ?)
                ON CONFLICT(device) DO UPDATE SET through = excluded.through, remover = excluded.remover
                """
        ).execute(
            arguments: [key, Int64(through), Data(remover.bytes)])
        return
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT EXISTS (SELECT 1 FROM ops o JOIN authors a ON a.id = o.author
                        WHERE a.key = ? AND o.sequence > ? AND o.sequence <= ? AND (a.frozenAt = 0 OR o.sequence < a.frozenAt)
                        AND NOT \(Schema.anyScore))
                        """), arguments: [key, Int64(through), previous ?? Int64.max]) ?? false
    }

    /// One register write: it stays unless the register holds a write `registers` prefers.
    static func setRegister(_ entity: Data, _ field: String, _ value: Data, stamp: [UInt8], _ registers: RegisterRule, _ db: Database)
        throws
    {
        let held = try Data.fetchOne(
            db.cachedStatement(sql: "SELECT stamp FROM registers WHERE entity = ? AND field = ?"), arguments: [entity, field])
        guard held.map({ registers.replaces(stamp, Array($0)) }) ?? true else { return }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO registers (entity, field, value, stamp) VALUES (?, ?, ?, ?)").execute(
            arguments: [entity, field, value, Data(stamp)])
    }
}

/// Register field names.
enum Register {
    static func par(_ hole: Int) -> String { "par.\(hole)" }
}

extension UUID {
    /// The 16 bytes of the UUID.
    public var bytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }

    /// The 16 bytes of the UUID, as SQLite stores them.
    var data: Data { withUnsafeBytes(of: uuid) { Data($0) } }

    /// A UUID from 16 bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
        self.init(uuid: uuid)
    }
}
