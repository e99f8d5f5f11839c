import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// The façade's commands by typed id: the same rounds as `Replica`'s commands by name, players
/// who share a name told apart, and no name standing in for an id.
@Suite struct EngineCommandTests {
    let directory = TemporaryDirectory("engine-commands")

    /// A leaderboard line without its ids, which differ between stores.
    struct Line: Equatable {
        let position: Int
        let name: String
        let strokes: Int
        let holes: Int
        let formatted: String
        let disputed: Int

        init(_ entry: StandingsEntry) {
            position = entry.position
            name = entry.name
            strokes = entry.totalStrokes
            holes = entry.holesPlayed
            formatted = entry.formatted
            disputed = entry.disputedHoles
        }
    }

    @Test func theSameRoundAsTheReplicasCommands() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("engine"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let ben = try await engine.addPlayer(named: "Ben")
        let course = try await engine.addCourse(named: "Three Holes", pars: [3, 4, 3])
        let round = try await engine.startRound(on: course, players: [ann, ben], guests: ["Dee"])
        let dee = try #require(try await engine.participants(named: "Dee", in: round).first)
        let firstBen = try await engine.recordScore(round: round, participant: .player(ben), hole: 1, strokes: 5)
        try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 3)
        try await engine.recordScore(round: round, participant: dee, hole: 1, strokes: 4)
        try await engine.correct(firstBen, strokes: 4)
        try await engine.recordScore(round: round, participant: .player(ann), hole: 2, strokes: 4)
        try await engine.resolve(round: round, participant: .player(ann), hole: 2, strokes: 5)
        try await engine.finishRound(round, force: true)
        let standings = try await engine.read(.standings(of: round))

        let replica = try Replica.create(at: directory.path("replica"), name: "phone", kind: .phone, owner: "Ann")
        try replica.addPlayer(name: "Ben")
        try replica.addCourse(name: "Three Holes", pars: [3, 4, 3])
        let byName = try replica.startRound(course: "Three Holes", players: ["Ann", "Ben"], guests: ["Dee"]).id.lowercased
        let firstBenByName = try replica.recordScore(round: byName, player: "Ben", hole: 1, strokes: 5)
        try replica.recordScore(round: byName, player: "Ann", hole: 1, strokes: 3)
        try replica.recordScore(round: byName, player: "Dee", hole: 1, strokes: 4)
        try replica.correct(event: firstBenByName.id.lowercased, strokes: 4)
        try replica.recordScore(round: byName, player: "Ann", hole: 2, strokes: 4)
        try replica.resolve(round: byName, player: "Ann", hole: 2, strokes: 5)
        try replica.finishRound(byName, force: true)
        let expected = StandingsDocument(try replica.roundView(matching: byName))

        #expect(standings.status == .completed)
        #expect(standings.status == expected.status)
        #expect(standings.standings.map(Line.init) == expected.standings.map(Line.init))
        #expect(standings.standings.map(Line.init).map(\.strokes) == [8, 4, 4])
        try await engine.close()
    }

    @Test func playersWhoShareANameAreToldApartByID() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("engine"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let first = try await engine.addPlayer(named: "Sam")
        let second = try await engine.addPlayer(named: "Sam")
        #expect(first != second)
        #expect(Set(try await engine.players(named: "Sam")) == [first, second])
        #expect(Set(try await engine.players(named: "  sAM ")) == [first, second], "names compare folded")
        #expect(try await engine.players(named: "Samuel").isEmpty)

        let course = try #require(try await engine.courses(named: "Morley Field").first)
        let round = try await engine.startRound(on: course, players: [ann, first, second])
        #expect(Set(try await engine.participants(named: "Sam", in: round)) == [.player(first), .player(second)])
        try await engine.recordScore(round: round, participant: .player(first), hole: 1, strokes: 2)
        try await engine.recordScore(round: round, participant: .player(second), hole: 1, strokes: 5)
        let lines = try await engine.read(.standings(of: round)).standings
        #expect(lines.first { $0.playerID == .player(first) }?.totalStrokes == 2)
        #expect(lines.first { $0.playerID == .player(second) }?.totalStrokes == 5)

        // By name, the store cannot tell them apart.
        let replica = try Replica.open(at: engine.directory)
        #expect(throws: ReplicaError.self) { try replica.recordScore(round: round.description, player: "Sam", hole: 2, strokes: 3) }
        try replica.close()
        try await engine.close()
    }

    /// A peer may name a player with the text of an id: a command by an id this store does not
    /// hold must fail, not fall back to that name.
    @Test func aNameNeverStandsInForAnUnknownID() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("engine"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let unknown = PlayerID(UUID())
        let impostor = try await engine.addPlayer(named: unknown.description)
        let course = try #require(try await engine.courses(named: "Morley Field").first)
        await #expect(throws: ReplicaError.unknown(kind: "player", text: unknown.description)) {
            try await engine.startRound(on: course, players: [ann, unknown])
        }
        let round = try await engine.startRound(on: course, players: [ann, impostor])
        await #expect(throws: EngineError.notAParticipant(.player(unknown), round: round)) {
            try await engine.recordScore(round: round, participant: .player(unknown), hole: 1, strokes: 3)
        }
        let ghost = CourseID(UUID())
        try await engine.addCourse(named: ghost.description, pars: [3])
        await #expect(throws: ReplicaError.unknown(kind: "course", text: ghost.description)) {
            try await engine.startRound(on: ghost, players: [ann])
        }
        let missing = RoundID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "round", text: missing.description)) {
            try await engine.read(.standings(of: missing))
        }
        try await engine.close()
    }

    @Test func aClosedEngineRefusesEveryCall() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("engine"), deviceName: "phone")
        try await engine.close()
        await #expect(throws: EngineError.closed) { try await engine.addPlayer(named: "Ann") }
        await #expect(throws: EngineError.closed) { try await engine.read(.status) }
    }
}
