import Foundation
import GRDB
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/store.md, "Tables": a round's score ops are found through `opsByScoredRound`, an index
/// on the op column `scoredRoundPrefix`, the first 2 bytes of the round id in each score op's
/// tail; queries check the whole id (`scoredRound`), so a score for another round whose id
/// starts the same is never read as this round's.
@Suite struct ScoreIndexTests {
    static func databasePath(_ replica: Replica) -> String {
        replica.directory.appendingPathComponent(Replica.databaseFileName).path
    }

    @Test func aRoundsScoresAreReadThroughTheIndex() throws {
        let test = try TestReplica("index", owner: "Ava", keySeed: 121)
        let round = try test.replica.startRound(course: "Morley Field", players: ["Ava"])
        try test.replica.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        let raw = try DatabaseQueue(path: Self.databasePath(test.replica))
        defer { try? raw.close() }
        let plan = try raw.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT o.hash FROM ops o
                    WHERE o.kind = x'0a' AND o.scoredRoundPrefix = ? AND o.scoredRound = ?
                    """, arguments: [Data(round.id.bytes.prefix(2)), Data(round.id.bytes)]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX opsByScoredRound") }, "\(plan)")
        let indexed = try raw.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'opsByScoredRound'")
        }
        #expect(indexed?.contains("ON ops(scoredRoundPrefix) WHERE kind = x'0a'") == true)
        // The op columns are the tail's parts, as the op codec reads them.
        let columns = try #require(
            try raw.read { db in try Row.fetchOne(db, sql: "SELECT kind, scoredRound, scoredRoundPrefix FROM ops WHERE kind = x'0a'") })
        #expect(columns["kind"] as Data? == Data([OpPayload.Kind.scoreRecorded.rawValue]))
        #expect(columns["scoredRound"] as Data? == Data(round.id.bytes))
        #expect(columns["scoredRoundPrefix"] as Data? == Data(round.id.bytes.prefix(2)))
        let other = try #require(try raw.read { db in try Row.fetchOne(db, sql: "SELECT kind, scoredRound FROM ops WHERE kind = x'08'") })
        #expect(other["kind"] as Data? == Data([OpPayload.Kind.roundStarted.rawValue]))
        #expect(other["scoredRound"] as Data? == nil)
    }

    @Test func aScoreForAnotherRoundWithTheSamePrefixIsNotThisRounds() throws {
        let test = try TestReplica("prefix", owner: "Ava", keySeed: 122)
        let round = try test.replica.startRound(course: "Morley Field", players: ["Ava"])
        try test.replica.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        let ava = try #require(try test.replica.players().first { $0.displayName == "Ava" }).id
        let before = try #require(try test.replica.roundView(round.id)).evaluation.score(player: ParticipantID(player: ava), hole: 1)

        // A decoy: a score of another device for a round id that shares the first 2 bytes.
        let decoyKeys = seededKeys(123)
        var bytes = round.id.bytes
        bytes[15] ^= 0xff
        let decoyRound = try #require(UUID(bytes: bytes))
        let decoy = rawOp(
            keys: decoyKeys, sequence: 1, previousHash: SignedOp.noPreviousHash,
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 10),
            payload: .scoreRecorded(
                ScoreRecord(roundID: decoyRound, hole: 1, player: .player(ava), strokes: 9, supersedes: [], reportedBy: nil)))
        #expect(try test.replica.ingest([AuthorSegment(ops: [decoy])]).rejected.isEmpty)

        let after = try #require(try test.replica.roundView(round.id)).evaluation
        #expect(after.score(player: ParticipantID(player: ava), hole: 1) == before)
        #expect(after.ignoredEvents.isEmpty)
        let report = try test.replica.verify()
        #expect(report.isIntact)
        #expect(report.ignoredOps.map(\.reason) == ["score for an unknown round"])
    }
}
