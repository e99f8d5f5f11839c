import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// The read-only views through the façade (docs/embedding.md, "The command line"): each returns
/// the value the replica's own view gives for the same store.
@Suite struct EngineViewTests {
    let directory = TemporaryDirectory("engine-views")

    /// Ann beats Ben by one stroke over a full round on Morley Field, which is then finished.
    func finishedRound() async throws -> (HyzerEngine, RoundID, PlayerID, PlayerID, CourseID) {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let ben = try await engine.addPlayer(named: "Ben")
        let course = try await engine.course(matching: "Morley Field")
        let round = try await engine.startRound(on: course, players: [ann, ben])
        let pars = try #require(try await engine.course(course)).pars
        for (index, par) in pars.enumerated() {
            try await engine.recordScore(round: round, participant: .player(ann), hole: index + 1, strokes: par)
            try await engine.recordScore(round: round, participant: .player(ben), hole: index + 1, strokes: par + (index == 0 ? 1 : 0))
        }
        try await engine.finishRound(round)
        return (engine, round, ann, ben, course)
    }

    @Test func roundsAndTheirDocumentsAreTheReplicasOwn() async throws {
        let (engine, round, ann, ben, _) = try await finishedRound()
        let replica = try Replica.open(at: engine.directory)
        let view = try #require(try await engine.roundView(round))
        #expect(view.evaluation == (try #require(try replica.roundView(round.uuid))).evaluation)
        #expect(view.evaluation.standings.map(\.playerID) == [.player(ann), .player(ben)])
        #expect(try await engine.roundView(RoundID(UUID())) == nil)
        #expect(try await engine.roundDocuments().map(\.id) == [round])
        let document = try #require(try await engine.roundDocument(round))
        #expect(document.status == .completed && document.participants.map(\.id) == [.player(ann), .player(ben)])
        #expect(document.receipts.count == 1, "the finish was signed for on this device")
        #expect(try await engine.roundDocument(RoundID(UUID())) == nil)
        #expect(try await engine.receipts(of: round) == replica.receipts(round: round.uuid))
        #expect(try await engine.receipts(of: round).map(\.device) == [engine.device])
        try await engine.close()
    }

    @Test func catalogueHistoryAndStatsAreTheReplicasOwn() async throws {
        let (engine, round, ann, ben, course) = try await finishedRound()
        let replica = try Replica.open(at: engine.directory)
        #expect(try await engine.playerDocuments().map(\.name) == ["Ann", "Ben"])
        #expect(try await engine.courses() == replica.courses())
        try await engine.deleteCourse(try await engine.addCourse(named: "Gone", pars: [3, 3, 3]))
        #expect(try await engine.courses(includingDeleted: true).count == replica.courses().count + 1)
        #expect(try await engine.course(course)?.name == "Morley Field")
        #expect(try await engine.course(CourseID(UUID())) == nil)

        #expect(try await engine.history().map(\.round) == [round])
        #expect(try await engine.history(includingStandings: true) == replica.history(includingStandings: true))
        #expect(try await engine.history().first?.winners == ["Ann"])

        let played = try replica.playedRounds()
        let players = try replica.players()
        let annPlayer = try #require(players.first { $0.id == ann.uuid })
        let benPlayer = try #require(players.first { $0.id == ben.uuid })
        #expect(try await engine.playerStats(of: ann) == PlayerStats(player: annPlayer, played: played))
        #expect(try await engine.playerStats(of: ann).roundsPlayed == 1)
        let record = try await engine.headToHead(ann, against: ben)
        #expect(record == HeadToHead(player: annPlayer, opponent: benPlayer, played: played))
        #expect(record.sharedRounds == 1 && record.wins == 1 && record.losses == 0)
        let courseStats = try await engine.courseStats(of: course)
        #expect(courseStats == CourseStats(course: try #require(try replica.course(course.uuid)), played: played))
        #expect(courseStats.roundsPlayed == 1)

        let nobody = PlayerID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "player", text: nobody.description)) { try await engine.playerStats(of: nobody) }
        await #expect(throws: ReplicaError.unknown(kind: "player", text: nobody.description)) {
            try await engine.headToHead(ann, against: nobody)
        }
        let nowhere = CourseID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "course", text: nowhere.description)) { try await engine.courseStats(of: nowhere) }
        try await engine.close()
    }

    /// A commit from another process on the store signals `changes()`.
    @Test func aCommitFromElsewhereSignalsAChange() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        var changes = try await engine.changes().makeAsyncIterator()
        let other = try await HyzerEngine.open(at: engine.directory)
        _ = try await other.addPlayer(named: "Ben")
        #expect(await changes.next() != nil)
        #expect(try await engine.playerDocuments().map(\.name) == ["Ann", "Ben"], "the change is there to read")
        try await other.close()
        try await engine.close()
    }
}
