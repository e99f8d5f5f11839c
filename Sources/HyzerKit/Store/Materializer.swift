import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// Keeps the view tables in step with the log. `apply` runs in the transaction that appends
/// each op; `rebuild` derives every view table from the log alone. Both are insensitive to the
/// order ops arrive in: registers keep the greatest stamp, everything else is a set.
enum Materializer {
    /// Writes the seeded courses, below every op's stamp.
    static func seed(_ db: Database) throws {
        for course in SeededCourses.all {
            let id = Data(course.id.bytes)
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO courses (id, holeCount, seeded, createdMilliseconds, createdCounter) VALUES (?, ?, 1, 0, 0)"
            ).execute(
                arguments: [id, course.holeCount])
            try setRegister(id, "name", Data(course.name.utf8), stamp: Stamp.seed, db)
            for (index, par) in course.pars.enumerated() {
                try setRegister(id, Register.par(index + 1), Data([UInt8(par)]), stamp: Stamp.seed, db)
            }
        }
    }

    /// Applies one op of the log (already inserted in `ops`) to the view tables. An op whose
    /// payload cannot be decoded stays in the log and changes no view.
    static func apply(_ op: SignedOp, authorRow: Int64, _ db: Database) throws {
        // Score ops are found through the log's own index; nothing to write (or decode) here.
        guard op.tail.count <= SignedOp.clockBytes || op.tail[SignedOp.clockBytes] != OpPayload.Kind.scoreRecorded.rawValue else { return }
        guard case .success(let payload) = op.payload(), let clock = op.clock else { return }
        var stamp: [UInt8] { Stamp.bytes(clock: clock, author: op.author, sequence: op.sequence) }
        let entity = op.entityID.data
        switch payload {
        case .deviceRegistered(let name, let kind):
            let device = Data(op.author.bytes)
            try setRegister(device, "device.name", Data(name.utf8), stamp: stamp, db)
            try setRegister(device, "device.kind", Data(kind.rawValue.utf8), stamp: stamp, db)
        case .playerCreated(let displayName):
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO players (id, creator, createdMilliseconds, createdCounter) VALUES (?, ?, ?, ?)"
            ).execute(
                arguments: [entity, Data(op.author.bytes), Int64(bitPattern: clock.physicalMilliseconds), Int64(clock.counter)])
            try setRegister(entity, "name", Data(displayName.utf8), stamp: stamp, db)
        case .playerRenamed(let playerID, let displayName):
            try setRegister(Data(playerID.bytes), "name", Data(displayName.utf8), stamp: stamp, db)
        case .courseCreated(let name, let pars):
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO courses (id, holeCount, seeded, createdMilliseconds, createdCounter) VALUES (?, ?, 0, ?, ?)"
            ).execute(
                arguments: [entity, pars.count, Int64(bitPattern: clock.physicalMilliseconds), Int64(clock.counter)])
            try setRegister(entity, "name", Data(name.utf8), stamp: stamp, db)
            for (index, par) in pars.enumerated() {
                try setRegister(entity, Register.par(index + 1), Data([UInt8(clamping: par)]), stamp: stamp, db)
            }
        case .courseRenamed(let courseID, let name):
            try setRegister(Data(courseID.bytes), "name", Data(name.utf8), stamp: stamp, db)
        case .holeParSet(let courseID, let hole, let par):
            try setRegister(Data(courseID.bytes), Register.par(hole), Data([UInt8(clamping: par)]), stamp: stamp, db)
        case .courseDeleted(let courseID):
            try setRegister(Data(courseID.bytes), "deleted", Data([1]), stamp: stamp, db)
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
            else { return }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO deviceSuccessions (predecessor, successor, signature) VALUES (?, ?, ?)")
                .execute(
                    arguments: [Data(predecessor.bytes), Data(op.author.bytes), Data(signature)])
        case .deviceLinked(let device, let playerID):
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO deviceLinks (player, device, linkedBy, sequence) VALUES (?, ?, ?, ?)")
                .execute(
                    arguments: [Data(playerID.bytes), Data(device.bytes), Data(op.author.bytes), Int64(op.sequence)])
        case .courseHolesSet(let courseID, let holes):
            try setRegister(Data(courseID.bytes), "holeCount", Data([UInt8(clamping: holes)]), stamp: stamp, db)
        case .playerAliasAdded, .roundReceipt, .roundImported:
            break  // Read from the log itself (`ViewReader.aliases()`, `.receipts()`, `.importedDates()`), like score ops.
        }
    }

    /// Empties the view tables and derives them again from the seed and the ops that count: the
    /// whole log of a live author, and a frozen author's ops below its fork point.
    static func rebuild(_ db: Database) throws {
        for table in Schema.viewTables { try db.execute(sql: "DELETE FROM \(table)") }
        try seed(db)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT ops.author, authors.key, ops.sequence, ops.hash, ops.tail
                FROM ops JOIN authors ON authors.id = ops.author
                WHERE authors.frozenAt = 0 OR ops.sequence < authors.frozenAt
                ORDER BY ops.author, ops.sequence
                """)
        var previous: (row: Int64, hash: [UInt8]) = (-1, SignedOp.noPreviousHash)
        while let row = try rows.next() {
            let authorRow: Int64 = row[0]
            let key: Data = row[1]
            if authorRow != previous.row { previous = (authorRow, SignedOp.noPreviousHash) }
            let op = SignedOp(
                author: AuthorID(bytes: Array(key))!, sequence: UInt64(row[2] as Int64),
                previousHash: previous.hash, tail: Array(row[4] as Data), signature: nil)
            previous.hash = op.hash
            try apply(op, authorRow: authorRow, db)
        }
    }

    /// Last writer wins: the write with the greater stamp stays.
    static func setRegister(_ entity: Data, _ field: String, _ value: Data, stamp: [UInt8], _ db: Database) throws {
        if PlantedBug.active.contains(.lastWriterWinsByClockOnly) {
            // The planted bug: only the clock is compared, so a tie goes to whoever arrives last.
            try db.cachedStatement(
                sql: """
                    INSERT INTO registers (entity, field, value, stamp) VALUES (?, ?, ?, ?)
                    ON CONFLICT(entity, field) DO UPDATE SET value = excluded.value, stamp = excluded.stamp
                    WHERE substr(excluded.stamp, 1, 12) >= substr(registers.stamp, 1, 12)
                    """
            ).execute(arguments: [entity, field, value, Data(stamp)])
            return
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO registers (entity, field, value, stamp) VALUES (?, ?, ?, ?)
                ON CONFLICT(entity, field) DO UPDATE SET value = excluded.value, stamp = excluded.stamp
                WHERE excluded.stamp > registers.stamp
                """
        ).execute(
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
