import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

/// docs/replication.md, "Store", and docs/rules.md, "Bad input": `verify` finds damage done behind the
/// store's back, and lists the authentic ops that views ignore.
@Suite struct VerifyTests {
    /// A store with five ops of its own: device record, Ava (owner), Ben, a round, a score.
    final class Store: Sendable {
        let test: TestReplica
        let round: Round

        init() throws {
            test = try TestReplica("phone", owner: "Ava", keySeed: 71)
            try test.replica.addPlayer(name: "Ben")
            round = try test.replica.startRound(course: "Morley Field", players: ["Ava", "Ben"])
            try test.replica.recordScore(round: round.id.lowercased, player: "Ben", hole: 1, strokes: 4)
        }

        var author: AuthorID { test.author }

        /// Runs `sql` through a second connection, with the log's triggers dropped first.
        func tamper(_ sql: String, _ arguments: StatementArguments = []) throws {
            let raw = try DatabaseQueue(path: test.replica.directory.appendingPathComponent(Replica.databaseFileName).path)
            try raw.write { db in
                try db.execute(
                    sql: """
                        DROP TRIGGER IF EXISTS opsRefuseUpdate; DROP TRIGGER IF EXISTS opsRefuseDelete;
                        DROP TRIGGER IF EXISTS opsKeepCoveringSignature
                        """)
                try db.execute(sql: sql, arguments: arguments)
            }
            try raw.close()
        }

        func tail(of sequence: Int) throws -> [UInt8] {
            let raw = try DatabaseQueue(path: test.replica.directory.appendingPathComponent(Replica.databaseFileName).path)
            defer { try? raw.close() }
            return try raw.read { db in
                Array(try Data.fetchOne(db, sql: "SELECT tail FROM ops WHERE sequence = ?", arguments: [sequence])!)
            }
        }
    }

    @Test func aFreshStoreIsIntact() throws {
        let store = try Store()
        let before = try Fingerprint(store.test.replica)
        let report = try store.test.replica.verify()

        #expect(report.isIntact)
        #expect(report.problems == [])
        #expect(report.opsChecked == 5)
        #expect(report.signaturesChecked == 1, "signature compaction keeps only the head's of a short log")
        #expect(report.ignoredOps == [])
        #expect(report.forks.isEmpty)
        #expect(try Fingerprint(store.test.replica) == before, "verify rolls its rebuild back")
    }

    @Test func aStoreFedBySegmentsIsIntactWithOneSignaturePerSegment() throws {
        let store = try Store()
        let receiver = try TestReplica("receiver", keySeed: 72, start: baseTime + 1_000)
        try receiver.replica.pull(from: store.test.replica)
        let report = try receiver.replica.verify()
        #expect(report.isIntact)
        #expect(report.opsChecked == 6)
        #expect(report.signaturesChecked == 2, "the receiver's own op and the last op of the segment")
    }

    /// A stored author key of the wrong length, damage done behind the store's back, is an error
    /// thrown by the reads that decode it straight from the statement (a delta, the digest),
    /// never a trap (docs/store.md, "Reading rows").
    @Test func anAuthorKeyOfTheWrongLengthIsAnErrorNotATrap() throws {
        let store = try Store()
        #expect(!(try store.test.replica.delta(above: VersionVector())).isEmpty)
        try store.tamper("UPDATE authors SET key = zeroblob(31) WHERE key = ?", [Data(store.author.bytes)])
        #expect(throws: (any Error).self) { try store.test.replica.delta(above: VersionVector()) }
        #expect(throws: (any Error).self) { try store.test.replica.digest() }
    }

    /// Damage done with raw SQL and the problems `verify` must report.
    struct Damage: Sendable, CustomTestStringConvertible {
        let label: String
        let apply: @Sendable (Store) throws -> Void
        /// Problems that must be listed; `exact` says whether they must be the only ones.
        let expected: @Sendable (Store) -> [VerifyReport.Problem]
        let exact: Bool

        var testDescription: String { label }
    }

    static let damages: [Damage] = [
        Damage(
            label: "a byte of op 3's tail changed",
            apply: { store in
                var tail = try store.tail(of: 3)
                tail[tail.count - 1] ^= 0x01  // the last byte of the name "Ben"
                try store.tamper("UPDATE ops SET tail = ? WHERE sequence = 3", [Data(tail)])
            },
            expected: { [.hashMismatch(author: $0.author, sequence: 3)] }, exact: false),
        Damage(
            label: "op 2's stored hash changed",
            apply: { try $0.tamper("UPDATE ops SET hash = zeroblob(32) WHERE sequence = 2") },
            expected: { [.hashMismatch(author: $0.author, sequence: 2)] }, exact: true),
        Damage(
            label: "the head op's signature changed",
            apply: { try $0.tamper("UPDATE ops SET signature = zeroblob(64) WHERE sequence = 5") },
            expected: { [.signatureInvalid(author: $0.author, sequence: 5)] }, exact: true),
        Damage(
            label: "the head op's signature removed",
            apply: { try $0.tamper("UPDATE ops SET signature = NULL WHERE sequence = 5") },
            expected: { [.brokenLog(author: $0.author, detail: "its head op carries no signature")] }, exact: true),
        Damage(
            label: "op 3 deleted",
            apply: { try $0.tamper("DELETE FROM ops WHERE sequence = 3") },
            expected: { [.brokenLog(author: $0.author, detail: "op 3 is missing")] }, exact: false),
        Damage(
            label: "the head op deleted",
            apply: { try $0.tamper("DELETE FROM ops WHERE sequence = 5") },
            expected: {
                [.brokenLog(author: $0.author, detail: "its head does not match its last op")]
            }, exact: true),
        Damage(
            label: "a round's view row deleted",
            apply: { try $0.tamper("DELETE FROM rounds") },
            expected: { _ in [.viewDiffers(table: "rounds")] }, exact: true),
        Damage(
            label: "a player's name changed in the registers",
            apply: {
                try $0.tamper("UPDATE registers SET value = CAST('Benjamin' AS BLOB) WHERE field = 'name' AND value = CAST('Ben' AS BLOB)")
            },
            expected: { _ in [.viewDiffers(table: "registers")] }, exact: true),
        Damage(
            label: "a round's view row deleted",
            apply: { try $0.tamper("DELETE FROM rounds") },
            expected: { _ in [.viewDiffers(table: "rounds")] }, exact: true),
        Damage(
            label: "a player inserted without an op",
            apply: {
                try $0.tamper(
                    "INSERT INTO players (id, creator, createdMilliseconds, createdCounter) SELECT zeroblob(16), creator, 0, 0 FROM players LIMIT 1"
                )
            },
            expected: { _ in [.viewDiffers(table: "players")] }, exact: true),
        Damage(
            label: "a seeded course deleted from the views",
            apply: { try $0.tamper("DELETE FROM courses WHERE seeded = 1") },
            expected: { _ in [.viewDiffers(table: "courses")] }, exact: true),
    ]

    @Test(arguments: damages)
    func damageIsFound(_ damage: Damage) throws {
        let store = try Store()
        try damage.apply(store)
        let report = try store.test.replica.verify()
        let expected = damage.expected(store)

        #expect(!report.isIntact)
        if damage.exact {
            #expect(report.problems == expected)
        } else {
            for problem in expected {
                #expect(report.problems.contains(problem), "\(problem) in \(report.problems)")
            }
        }
    }

    /// Damage that keeps every BLOB's length: the view fingerprints must still see it.
    static let sameLengthDamages: [Damage] = [
        Damage(
            label: "a player's name changed to one of the same length",
            apply: {
                try $0.tamper("UPDATE registers SET value = CAST('Bob' AS BLOB) WHERE field = 'name' AND value = CAST('Ben' AS BLOB)")
            },
            expected: { _ in [.viewDiffers(table: "registers")] }, exact: true),
        Damage(
            label: "a player's creator changed",
            apply: { try $0.tamper("UPDATE players SET creator = zeroblob(32)") },
            expected: { _ in [.viewDiffers(table: "players")] }, exact: true),
        Damage(
            label: "a round's stamp changed to one of the same length",
            apply: { try $0.tamper("UPDATE rounds SET stamp = zeroblob(52)") },
            expected: { _ in [.viewDiffers(table: "rounds")] }, exact: true),
    ]

    @Test(arguments: sameLengthDamages)
    func damageKeepingBlobLengthsIsFound(_ damage: Damage) throws {
        try damageIsFound(damage)
    }

    // MARK: Ignored ops

    /// Authentic ops that break a domain rule, written by a device that skipped validation.
    enum RuleBreak: String, CaseIterable, Sendable {
        case holeThirty, zeroStrokes, elevenStrokes, notAParticipant, unknownRound, undecodablePayload

        /// The op's tail, given the round it should target and the round's participants.
        func tail(round: Round, clock: HLCTimestamp) -> [UInt8] {
            let ben = ParticipantRef(participantID: round.participants[1].id)
            func score(round: UUID = round.id, hole: Int = 1, player: ParticipantRef = ben, strokes: Int = 3) -> [UInt8] {
                SignedOp.tail(
                    clock: clock,
                    payloadBytes: OpPayload.scoreRecorded(
                        ScoreRecord(
                            roundID: round, hole: hole, player: player, strokes: strokes, supersedes: [], reportedBy: nil)
                    ).encoded())
            }
            return switch self {
            case .holeThirty: score(hole: 30)
            case .zeroStrokes: score(strokes: 0)
            case .elevenStrokes: score(strokes: 11)
            case .notAParticipant: score(player: .player(UUID(uuidString: "00000000-0000-8000-8000-00000000beef")!))
            case .unknownRound: score(round: UUID(uuidString: "00000000-0000-8000-8000-0000000000aa")!)
            case .undecodablePayload: SignedOp.tail(clock: clock, payloadBytes: [0xEE, 1, 2, 3])
            }
        }

        /// The reason `verify` gives, after the `score event <id>: ` prefix where there is one.
        var reason: String {
            switch self {
            case .holeThirty: "hole 30 is outside 1...18"
            case .zeroStrokes: "0 strokes is outside 1...10"
            case .elevenStrokes: "11 strokes is outside 1...10"
            case .notAParticipant: "00000000-0000-8000-8000-00000000beef is not a participant of the round"
            case .unknownRound: "score for an unknown round"
            case .undecodablePayload: "undecodable payload"
            }
        }
    }

    @Test(arguments: RuleBreak.allCases)
    func anOpBreakingADomainRuleIsKeptAndListed(_ rule: RuleBreak) throws {
        let store = try Store()
        let peer = try TestReplica("peer", keySeed: 73, start: baseTime + 2_000)
        try syncAll([store.test, peer])
        let viewsBefore = try scoringJSON(store.test.replica)

        let rogue = seededKeys(74)
        let rogueID = AuthorID(bytes: rogue.publicKey)!
        let unsigned = SignedOp(
            author: rogueID, sequence: 1, previousHash: SignedOp.noPreviousHash,
            tail: rule.tail(round: store.round, clock: HLCTimestamp(physicalMilliseconds: baseTime + 9_000)), signature: nil)
        let op = unsigned.with(signature: rogue.sign(SignedOp.signedMessage(hash: unsigned.hash)))
        let segment = AuthorSegment(ops: [op])

        for test in [store.test, peer] {
            let opCount = try test.replica.status().opCount
            let report = try test.replica.ingest([segment])
            #expect(report.opsApplied == 1)
            #expect(report.rejected.isEmpty)
            #expect(try test.replica.status().opCount == opCount + 1, "the op is kept in the log")
            #expect(try test.replica.versionVector()[rogueID] == 1)
        }
        #expect(try scoringJSON(store.test.replica) == viewsBefore, "views ignore the op")

        let report = try store.test.replica.verify()
        #expect(report.isIntact)
        let ignored = try #require(report.ignoredOps.first)
        #expect(report.ignoredOps.count == 1)
        #expect(ignored.author == rogueID)
        #expect(ignored.sequence == 1)
        let expectedReason =
            switch rule {
            case .unknownRound, .undecodablePayload: rule.reason
            default: "score event \(op.entityID.lowercased): \(rule.reason)"
            }
        #expect(ignored.reason.hasPrefix(expectedReason), "\(ignored.reason)")
        #expect(try peer.replica.verify().ignoredOps == report.ignoredOps, "every replica lists the same ops")
        #expect(try snapshot(peer.replica) == snapshot(store.test.replica))
    }

    /// Authentic ops other than scores that views ignore because they break an ownership rule.
    enum ForgedOp: String, CaseIterable, Sendable {
        case finishFromANonOrganizerDevice, correctionOfAnotherDevicesEvent, linkSignedByANonOwner
    }

    @Test(arguments: ForgedOp.allCases)
    func otherIgnoredOpsAreListed(_ forged: ForgedOp) throws {
        let store = try Store()
        let ben = try TestReplica("ben-phone", owner: "Bea", keySeed: 75, start: baseTime + 2_000)
        try syncAll([store.test, ben])
        let benEvent = try store.test.replica.roundView(store.round.id)!.evaluation.validEvents[0]
        let clock = HLCTimestamp(physicalMilliseconds: baseTime + 9_000)
        let payload: OpPayload =
            switch forged {
            case .finishFromANonOrganizerDevice: .roundFinished(roundID: store.round.id, force: true)
            case .correctionOfAnotherDevicesEvent:
                .scoreRecorded(
                    ScoreRecord(
                        roundID: store.round.id, hole: 1, player: ParticipantRef(participantID: benEvent.playerID), strokes: 3,
                        supersedes: [benEvent.id], reportedBy: nil))
            case .linkSignedByANonOwner: .deviceLinked(device: ben.author, playerID: try store.test.replica.resolvePlayer("Ava"))
            }
        let op = try appendRaw(payload, to: ben, clock: clock)
        try syncAll([store.test, ben])

        let report = try store.test.replica.verify()
        #expect(report.ignoredOps.map(\.author) == [ben.author])
        #expect(report.ignoredOps.map(\.sequence) == [op.sequence])
    }
}
