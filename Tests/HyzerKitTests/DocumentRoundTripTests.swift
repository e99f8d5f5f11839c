import Foundation
import HyzerDomain
import HyzerKit
import Testing

/// Every document and every rules value it carries is `Codable` both ways (docs/embedding.md,
/// "What it offers"): an app caches what the CLI prints and reads it back as the same value, and
/// a cached file that is damaged throws instead of trapping.
@Suite struct DocumentRoundTripTests {
    /// Ava's phone (owns Ava, the organizer) and Ben's phone, synced, with a finished round on a
    /// three-hole course for Ava, Ben and the guest Dee: Ben's first hole disputed, a late score
    /// of Ben's phone, Dee never scored. Cy and an unplayed course have no rounds.
    final class Fixture: Sendable {
        let ava: TestReplica
        let ben: TestReplica
        let round: Round
        let view: RoundView

        init() throws {
            ava = try TestReplica("ava-phone", owner: "Ava", keySeed: 51)
            ben = try TestReplica("ben-phone", owner: "Ben", keySeed: 52, start: baseTime + 3_000)
            try syncAll([ava, ben])
            _ = try ava.replica.addCourse(name: "Three", pars: [3, 4, 5])
            _ = try ava.replica.addCourse(name: "Unplayed", pars: [3, 3])
            _ = try ava.replica.addPlayer(name: "Cy")
            try ava.replica.addAlias(player: "Ben", alias: "Benny")
            round = try ava.replica.startRound(course: "Three", players: ["Ava", "Ben"], guests: ["Dee"])
            try syncAll([ava, ben])
            let id = round.id.lowercased
            for (hole, strokes) in [(1, 3), (2, 5), (3, 4)] {
                try ava.replica.recordScore(round: id, player: "Ava", hole: hole, strokes: strokes)
                try ava.replica.recordScore(round: id, player: "Ben", hole: hole, strokes: strokes + 1)
            }
            try ben.replica.recordScore(round: id, player: "Ben", hole: 1, strokes: 5)
            try syncAll([ava, ben])
            // Ben's phone scores before the finish, which Ava's phone writes without it.
            try ben.replica.recordScore(round: id, player: "Ben", hole: 2, strokes: 7)
            ava.clock.set(baseTime + 300_000)
            _ = try ava.replica.finishRound(id, force: true)
            try syncAll([ava, ben])
            view = try #require(try ava.replica.roundView(round.id))
        }

        func player(_ name: String) throws -> Player {
            let id = try ava.replica.resolvePlayer(name)
            return try #require(try ava.replica.players().first { $0.id == id })
        }

        func course(_ name: String) throws -> Course {
            try #require(try ava.replica.course(try ava.replica.resolveCourse(name)))
        }
    }

    /// Encodes `value` as the CLI does, decodes it, and expects the same value and the same bytes.
    func expectRoundTrip<Value: Codable & Equatable>(
        _ value: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let bytes = try DocumentEncoding.encode(value)
        let decoded = try JSONDecoder().decode(Value.self, from: bytes)
        #expect(decoded == value, "\(Value.self)", sourceLocation: sourceLocation)
        #expect(try DocumentEncoding.encode(decoded) == bytes, "\(Value.self)", sourceLocation: sourceLocation)
    }

    @Test func everyDocumentDecodesToItselfAndEncodesToTheSameBytes() throws {
        let f = try Fixture()
        let evaluation = f.view.evaluation
        #expect(evaluation.status == .completed)
        #expect(evaluation.discrepancies.count == 1, "Ben's first hole is disputed")
        #expect(evaluation.lateScores.count == 1, "Ben's phone's second score is late")

        try expectRoundTrip(StandingsDocument(f.view))
        let round = try f.ava.replica.roundDocument(f.view)
        #expect(round.participants.map(\.isGuest) == [false, false, true])
        try expectRoundTrip(round)
        try expectRoundTrip(try f.ava.replica.roundDocuments())
        try expectRoundTrip(DiscrepanciesDocument(f.view))
        try expectRoundTrip(LateScoreDocument.all(f.view))
        let players = try f.ava.replica.playerDocuments()
        #expect(players.map(\.aliases).contains(["Benny"]))
        try expectRoundTrip(players)
        let history = try f.ava.replica.history(includingStandings: true)
        let (ava, ben, cy) = (try f.player("Ava"), try f.player("Ben"), try f.player("Cy"))
        #expect(PlayerHistoryDocument(ben, history: history).rounds.count == 1)
        try expectRoundTrip(PlayerHistoryDocument(ben, history: history))
        try expectRoundTrip(PlayerHistoryDocument(cy, history: history))

        // The rules' values, with the `null`s of an unscored hole and of no rounds.
        let participants = evaluation.participants.map(\.id)
        let breakdowns = participants.compactMap(evaluation.breakdown(player:))
        #expect(breakdowns.last?.holes.first?.strokes == nil, "Dee scored nothing")
        try expectRoundTrip(breakdowns)
        try expectRoundTrip(evaluation.standings)
        try expectRoundTrip(evaluation.discrepancies)
        try expectRoundTrip(evaluation.lateScores)
        let played = try f.ava.replica.playedRounds()
        let stats = PlayerStats(player: ben, played: played)
        #expect(stats.roundsPlayed == 1 && PlayerStats(player: cy, played: played).best == nil)
        try expectRoundTrip(stats)
        try expectRoundTrip(PlayerStats(player: cy, played: played))
        let record = HeadToHead(player: ava, opponent: ben, played: played)
        #expect(record.lastMeetings.map(\.result) == [.win])
        try expectRoundTrip(record)
        try expectRoundTrip(HeadToHead(player: ava, opponent: cy, played: played))
        let course = CourseStats(course: try f.course("Three"), played: played)
        #expect(course.hardest != nil && course.holes.allSatisfy { $0.averageStrokes != nil })
        try expectRoundTrip(course)
        try expectRoundTrip(CourseStats(course: try f.course("Unplayed"), played: played))
    }

    @Test func aDamagedDocumentThrowsADecodingError() throws {
        let f = try Fixture()
        let json = String(decoding: try DocumentEncoding.encode(try f.ava.replica.roundDocument(f.view)), as: UTF8.self)
        let round = f.round.id.lowercased
        let guest = try #require(f.round.participants.first { $0.isGuest }).id.description
        let late = try #require(f.view.evaluation.lateScores.first)
        let damaged = [
            json.replacingOccurrences(of: "\"id\":\"\(round)\"", with: "\"id\":\"not-a-round\""),
            json.replacingOccurrences(of: guest, with: "guest:x"),
            json.replacingOccurrences(of: "\"deviceID\":\"\(late.deviceID.hex)\"", with: "\"deviceID\":\"abc\""),
            json.replacingOccurrences(of: "\"status\":\"completed\"", with: "\"status\":\"paused\""),
            json.replacingOccurrences(of: "\"course\":\"Three\",", with: ""),
            json.replacingOccurrences(of: "\"holeCount\":3", with: "\"holeCount\":1e30"),
            json.replacingOccurrences(of: "\"startedAt\":", with: "\"startedAt\":-"),
            String(json.dropLast()),
        ]
        for text in damaged {
            #expect(text != json, "each damage changes the document")
            #expect(throws: DecodingError.self, "\(text)") { try JSONDecoder().decode(RoundDocument.self, from: Data(text.utf8)) }
        }

        let record = String(
            decoding: try DocumentEncoding.encode(
                HeadToHead(player: try f.player("Ava"), opponent: try f.player("Ben"), played: try f.ava.replica.playedRounds())),
            as: UTF8.self)
        let draw = record.replacingOccurrences(of: "\"result\":\"win\"", with: "\"result\":\"draw\"")
        #expect(draw != record)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HeadToHead.self, from: Data(draw.utf8)) }
    }
}
