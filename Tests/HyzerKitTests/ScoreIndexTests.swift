import Foundation
import GRDB
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/store.md, "Tables": a round's score ops are found through `opsByScoredRound`, an index
/// on the first 2 bytes of the round id in each score op's tail; queries check the whole id, so
/// a score for another round whose id starts the same is never read as this round's.
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
                    WHERE substr(o.tail, 13, 1) = x'0a' AND substr(o.tail, 14, 2) = ? AND substr(o.tail, 14, 16) = ?
                    """, arguments: [Data(round.id.bytes.prefix(2)), Data(round.id.bytes)]
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX opsByScoredRound") }, "\(plan)")
        let indexed = try raw.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'opsByScoredRound'")
        }
        #expect(indexed?.contains("substr(tail, 14, 2)") == true)
    }

    @Test func aScoreForAnotherRoundWithTheSamePrefixIsNotThisRounds() throws {
        let test = try TestReplica("prefix", owner: "Ava", keySeed: 122)
        let round = try test.replica.startRound(course: "Morley Field", players: ["Ava"])
        try test.replica.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        let ava = try #require(try test.replica.players().first { $0.displayName == "Ava" }).id
        let before = try #require(try test.replica.roundView(round.id)).evaluation.score(player: ava.lowercased, hole: 1)

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
        #expect(after.score(player: ava.lowercased, hole: 1) == before)
        #expect(after.ignoredEvents.isEmpty)
        let report = try test.replica.verify()
        #expect(report.isIntact)
        #expect(report.ignoredOps.map(\.reason) == ["score for an unknown round"])
    }
}
