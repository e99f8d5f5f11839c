import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    /// Checks everything the replica holds: SQLite's integrity, every hash chain and stored
    /// signature, that the views equal views rebuilt from the log (the rebuild is rolled back),
    /// that every history cache row `history` would use equals the row evaluated from the log,
    /// and lists the authentic ops that views ignore.
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        try database.writeWithoutTransaction { db in
            // quick_check, and a full check of the log table, whose index finds rounds' scores.
            let integrity = try String.fetchAll(db, sql: "PRAGMA quick_check") + String.fetchAll(db, sql: "PRAGMA integrity_check(ops)")
            if integrity != ["ok", "ok"] { report.problems.append(.databaseIntegrity(integrity.prefix(3).joined(separator: "; "))) }
            try Self.verifyLogs(db, &report)
            try db.inTransaction {
                let before = try Self.viewFingerprints(db)
                try Materializer.rebuild(db, policies.registers)
                let after = try Self.viewFingerprints(db)
                for table in Schema.viewTables where before[table] != after[table] {
                    report.problems.append(.viewDiffers(table: table))
                }
                return .rollback
            }
            if try !HistoryCache.mismatches(db, policies.merge).isEmpty { report.problems.append(.viewDiffers(table: "historyCache")) }
            try Self.listIgnoredOps(db, policies.merge, &report)
            report.forks = try FrozenAuthor.all(db)
        }
        return report
    }

    private static func verifyLogs(_ db: Database, _ report: inout VerifyReport) throws {
        let authors = try Row.fetchAll(db.cachedStatement(sql: "SELECT \(AuthorRow.Column.selection) FROM authors ORDER BY key"))
            .map(AuthorRow.init(row:))
        for author in authors {
            let key = author.key
            let head = author.headSequence
            var expected: UInt64 = 1
            var previous = SignedOp.noPreviousHash
            var lastSigned = false
            let logged = try LoggedOp.range(author: author.id, db)
            while let row = try logged.next() {
                let sequence = row.sequence
                guard sequence == expected else {
                    report.problems.append(.brokenLog(author: key, detail: "op \(expected) is missing"))
                    break
                }
                let op = SignedOp(author: key, sequence: sequence, previousHash: previous, tail: row.tail, signature: row.signature)
                report.opsChecked += 1
                // The whole hash, or its prefix where `StoredHash` allows one (an op whose
                // signature was dropped by hand may keep its whole hash).
                let stored = row.storedHash
                if !(stored.elementsEqual(op.hash) || stored.count < op.hash.count && StoredHash.stored(op).elementsEqual(stored)) {
                    report.problems.append(.hashMismatch(author: key, sequence: sequence))
                }
                lastSigned = op.signature != nil
                if lastSigned {
                    report.signaturesChecked += 1
                    if !op.hasValidSignature { report.problems.append(.signatureInvalid(author: key, sequence: sequence)) }
                }
                previous = op.hash
                expected += 1
            }
            if expected - 1 != head || (head > 0 && previous != author.headHash) {
                report.problems.append(.brokenLog(author: key, detail: "its head does not match its last op"))
            } else if head > 0 && !lastSigned {
                report.problems.append(.brokenLog(author: key, detail: "its head op carries no signature"))
            }
        }
    }

    /// One hash per view table over its rows in primary-key order.
    private static func viewFingerprints(_ db: Database) throws -> [String: [UInt8]] {
        var fingerprints: [String: [UInt8]] = [:]
        for table in Schema.viewTables {
            var writer = ByteWriter()
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2, 3")
            while let row = try rows.next() {
                for value in row.databaseValues {
                    switch value.storage {
                    case .null: writer.write(UInt8(0))
                    case .int64(let number):
                        writer.write(UInt8(1))
                        writer.write(UInt64(bitPattern: number))
                    case .double(let number):
                        writer.write(UInt8(2))
                        writer.write(number.bitPattern)
                    case .string(let text):
                        writer.write(UInt8(3))
                        writer.write(lengthPrefixed: Array(text.utf8))
                    case .blob(let data):
                        writer.write(UInt8(4))
                        writer.write(lengthPrefixed: Array(data))
                    }
                }
            }
            fingerprints[table] = Blake2b.hash256(writer.bytes)
        }
        return fingerprints
    }

    private static func listIgnoredOps(_ db: Database, _ merge: MergeRule, _ report: inout VerifyReport) throws {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT a.key AS author, o.sequence, o.tail FROM ops o JOIN authors a ON a.id = o.author ORDER BY a.key, o.sequence"))
        for row in rows {
            let tail = OpTail(try row.decode(Data.self, forColumn: "tail"))
            do {
                _ = try tail.payload()
            } catch {
                report.ignoredOps.append(
                    .init(
                        author: try row.decode(forColumn: "author"), sequence: try row.decode(forColumn: "sequence"),
                        reason: "undecodable payload (\(error))"))
            }
        }
        let reader = ViewReader(db: db)
        let ownership = try reader.ownership()
        for id in try reader.roundIDs() {
            guard let round = try reader.round(id) else { continue }
            var sequences: [UUID: UInt64] = [:]
            for op in try StoredOp.scores(db, round: id) { sequences[op.entityID] = op.sequence }
            let evaluation = try reader.evaluation(round, ownership: ownership, merge: merge)
            for ignored in evaluation.ignoredEvents {
                report.ignoredOps.append(
                    .init(
                        author: ignored.event.deviceID, sequence: sequences[ignored.event.id] ?? 0,
                        reason: "score event \(ignored.event.id.lowercased): \(ignored.reason)"))
            }
            for finish in try StoredOp.fetch(db, from: "roundFinishes", where: "v.round = ?", arguments: [Data(id.bytes)])
            where !ownership.device(finish.author, owns: round.organizerID) {
                report.ignoredOps.append(
                    .init(
                        author: finish.author, sequence: finish.sequence,
                        reason: "finish of round \(id.lowercased) from a device that does not own its organizer"))
            }
            for event in evaluation.eventsWithIgnoredSupersessions {
                report.ignoredOps.append(
                    .init(
                        author: event.deviceID, sequence: sequences[event.id] ?? 0,
                        reason:
                            "score event \(event.id.lowercased) supersedes an event it may not (another device's score, and not the organizer's)"
                    ))
            }
        }
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT player, device, linkedBy, sequence FROM deviceLinks ORDER BY linkedBy, sequence"))
        {
            let player: UUID = try row.decode(forColumn: "player")
            let linkedBy: AuthorID = try row.decode(forColumn: "linkedBy")
            guard !ownership.device(linkedBy, owns: ParticipantID(player: player)) else { continue }
            report.ignoredOps.append(
                .init(
                    author: linkedBy, sequence: try row.decode(forColumn: "sequence"),
                    reason: "link to player \(player.lowercased) signed by a device that does not own it"))
        }
        let orphans = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT a.key AS author, o.sequence FROM ops o JOIN authors a ON a.id = o.author
                    WHERE \(Schema.anyScore) AND \(Schema.counts) AND o.scoredRound NOT IN (SELECT id FROM rounds)
                    ORDER BY a.key, o.sequence
                    """))
        for row in orphans {
            report.ignoredOps.append(
                .init(
                    author: try row.decode(forColumn: "author"), sequence: try row.decode(forColumn: "sequence"),
                    reason: "score for an unknown round"))
        }
    }
}
