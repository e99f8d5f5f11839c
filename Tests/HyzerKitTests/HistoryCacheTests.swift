import Foundation
import GRDB
import HyzerDomain
import Testing

@testable import HyzerKit

/// docs/store.md, "The history cache": `history` from the cache equals `history` evaluated from
/// the ops, byte for byte; an op that changes an input of one entry makes exactly that entry be
/// evaluated again; `verify` finds a cache row changed behind the store's back.
@Suite struct HistoryCacheTests {
    /// Two devices: a owns Ann (and registers Ben), b owns Cat. Round one (Ann and Ben) is
    /// organized by Ann on a, round two (Cat and Ann) by Cat on b; both are finished and synced.
    final class Club: Sendable {
        let a: TestReplica
        let b: TestReplica
        let one: UUID
        let two: UUID

        init() throws {
            a = try TestReplica("a", owner: "Ann", keySeed: 81)
            b = try TestReplica("b", owner: "Cat", keySeed: 82, start: baseTime + 500)
            try a.replica.addPlayer(name: "Ben")
            try syncAll([a, b])
            one = try a.replica.startRound(course: "Morley Field", players: ["Ann", "Ben"]).id
            try a.replica.recordScore(round: one.lowercased, player: "Ann", hole: 1, strokes: 3)
            try a.replica.recordScore(round: one.lowercased, player: "Ben", hole: 1, strokes: 4)
            try a.replica.finishRound(one.lowercased, force: true)
            two = try b.replica.startRound(course: "Morley Field", players: ["Cat", "Ann"]).id
            try b.replica.recordScore(round: two.lowercased, player: "Cat", hole: 1, strokes: 2)
            try b.replica.finishRound(two.lowercased, force: true)
            try syncAll([a, b])
        }

        /// The rounds the next `history` on a evaluates afresh instead of taking from the cache.
        func evaluatedAfresh() throws -> Set<UUID> {
            Set(
                try a.replica.read { try HistoryCache.lookup($0, standings: false, merge: .supersession) }.update?.rows.keys.map { $0 }
                    ?? [])
        }

        /// `history` evaluated from the ops alone, as canonical JSON.
        func uncached(_ replica: Replica) throws -> String {
            try canonicalJSON(History.entries(replica.rounds().map { ($0.round, $0.evaluation) }, includeStandings: true))
        }

        func cached(_ replica: Replica) throws -> String {
            try canonicalJSON(replica.history(includingStandings: true))
        }

        func raw(_ sql: String, _ arguments: StatementArguments = []) throws {
            let raw = try DatabaseQueue(path: a.replica.directory.appendingPathComponent(Replica.databaseFileName).path)
            try raw.write { db in try db.execute(sql: sql, arguments: arguments) }
            try raw.close()
        }
    }

    @Test func aHitAndAMissGiveTheSameBytes() throws {
        let club = try Club()
        let expected = try club.uncached(club.a.replica)
        #expect(try club.evaluatedAfresh() == [club.one, club.two], "a cold cache evaluates every completed round")
        #expect(try club.cached(club.a.replica) == expected, "miss")
        #expect(try club.evaluatedAfresh() == [], "the rows were stored")
        #expect(
            try club.a.replica.read { try HistoryCache.lookup($0, standings: false, merge: .supersession) }.update == nil,
            "nothing new: nothing to write")
        #expect(try club.cached(club.a.replica) == expected, "hit")
        let withoutStandings = try canonicalJSON(club.a.replica.history())
        #expect(
            withoutStandings
                == (try canonicalJSON(History.entries(club.a.replica.rounds().map { ($0.round, $0.evaluation) }, includeStandings: false))))
        // The other replica, with its own cache, shows the same bytes.
        #expect(try club.cached(club.b.replica) == expected)
        #expect(try club.cached(club.b.replica) == expected)
    }

    @Test func renamingAPlayerEvaluatesOnlyTheRoundsThatNameThem() throws {
        let club = try Club()
        _ = try club.a.replica.history()
        try club.a.replica.renamePlayer("Ben", to: "Benny")
        #expect(try club.evaluatedAfresh() == [club.one])
        #expect(try club.cached(club.a.replica) == club.uncached(club.a.replica))
        #expect(try club.cached(club.a.replica).contains("Benny"))
    }

    @Test func linkingADeviceToAnOrganizerEvaluatesOnlyTheRoundsItOrganized() throws {
        let club = try Club()
        _ = try club.a.replica.history()
        try club.b.replica.linkDevice(club.a.author.hex, owner: "Cat")
        try syncAll([club.a, club.b])
        #expect(try club.evaluatedAfresh() == [club.two])
        #expect(try club.cached(club.a.replica) == club.uncached(club.a.replica))
    }

    @Test func aLateScoreEvaluatesOnlyItsRound() throws {
        let club = try Club()
        _ = try club.a.replica.history()
        let ann = try #require(try club.a.replica.identity().owner).id
        let late = ScoreRecord(roundID: club.one, hole: 2, player: .player(ann), strokes: 5, supersedes: [], reportedBy: nil)
        try appendRaw(.scoreRecorded(late), to: club.a, clock: HLCTimestamp(physicalMilliseconds: baseTime + 60_000))
        #expect(try club.evaluatedAfresh() == [club.one])
        #expect(try club.cached(club.a.replica) == club.uncached(club.a.replica))
        #expect(try club.evaluatedAfresh() == [])
    }

    @Test func aCourseEditEvaluatesNothing() throws {
        let club = try Club()
        _ = try club.a.replica.history()
        try club.a.replica.renameCourse("Morley Field", to: "Morley")
        #expect(try club.evaluatedAfresh() == [])
        #expect(try club.cached(club.a.replica) == club.uncached(club.a.replica))
    }

    @Test func verifyFindsATamperedRow() throws {
        let club = try Club()
        _ = try club.a.replica.history()
        #expect(try club.a.replica.verify().isIntact)
        // Round one's row now holds round two's entry: history would show it.
        try club.raw(
            "UPDATE historyCache SET entry = (SELECT entry FROM historyCache WHERE round = ?) WHERE round = ?",
            [club.two.data, club.one.data])
        #expect(try club.cached(club.a.replica) != club.uncached(club.a.replica), "the cache is used as it is")
        #expect(try club.a.replica.verify().problems == [.viewDiffers(table: "historyCache")])
    }

    @Test func aCacheAheadOfTheLogIsNotUsed() throws {
        let club = try Club()
        let expected = try club.uncached(club.a.replica)
        _ = try club.a.replica.history()
        try club.raw(
            "UPDATE historyCache SET entry = (SELECT entry FROM historyCache WHERE round = ?) WHERE round = ?",
            [club.two.data, club.one.data])
        // Heads beyond the log's (a store restored under a newer cache) make every row suspect.
        try club.raw("UPDATE historyCacheHeads SET headSequence = headSequence + 1000")
        #expect(try club.cached(club.a.replica) == expected)
        #expect(try club.a.replica.verify().isIntact)
    }

    /// The stats' cards from the cache equal the cards of every completed round evaluated from
    /// its ops, before and after a rename makes one round be evaluated again.
    @Test func playedRoundsFromTheCacheEqualTheEvaluatedOnes() throws {
        let club = try Club()
        func evaluated() throws -> Set<PlayedRound> { Set(try club.a.replica.completedRounds().compactMap(PlayedRound.init)) }
        #expect(try evaluated().count == 2)
        #expect(try Set(club.a.replica.playedRounds()) == evaluated(), "miss")
        #expect(try club.a.replica.read { try HistoryCache.played($0, merge: .supersession) }.update == nil, "the rows were stored")
        #expect(try Set(club.a.replica.playedRounds()) == evaluated(), "hit")
        try club.a.replica.renamePlayer("Ben", to: "Benjamin")
        #expect(try club.evaluatedAfresh() == [club.one])
        #expect(try Set(club.a.replica.playedRounds()) == evaluated(), "after a rename")
    }

    @Test func verifyFindsATamperedPlayedRound() throws {
        let club = try Club()
        _ = try club.a.replica.playedRounds()
        #expect(try club.a.replica.verify().isIntact)
        try club.raw(
            "UPDATE historyCache SET played = (SELECT played FROM historyCache WHERE round = ?) WHERE round = ?",
            [club.two.data, club.one.data])
        #expect(
            try club.a.replica.playedRounds().map(\.id).sorted(by: UUID.precedes) == [club.two, club.two], "the cache is used as it is")
        #expect(try club.a.replica.verify().problems == [.viewDiffers(table: "historyCache")])
    }
}
