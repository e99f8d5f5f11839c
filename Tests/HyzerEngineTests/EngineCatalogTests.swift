import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// Players and courses changed by typed id (what `player rename`, `player alias` and `course
/// set-par`, `set-holes`, `rename`, `delete` call); an id the store does not hold is refused.
@Suite struct EngineCatalogTests {
    let directory = TemporaryDirectory("engine-catalog")

    @Test func playersAndCoursesChangeByIDAndAnUnknownIDIsRefused() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let ben = try await engine.addPlayer(named: "Ben")
        try await engine.renamePlayer(ben, to: "Benjamin")
        #expect(try await engine.player(ben)?.displayName == "Benjamin")
        try await engine.addAlias("Benny", for: ben)
        await #expect(throws: CardError.aliasTaken(alias: "Benny", player: "Benjamin")) { try await engine.addAlias("Benny", for: ann) }
        let stranger = PlayerID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "player", text: stranger.description)) {
            try await engine.renamePlayer(stranger, to: "Zed")
        }

        let course = try await engine.addCourse(named: "Three Holes", pars: [3, 3, 3])
        try await engine.setPar(4, hole: 2, of: course)
        try await engine.setHoleCount(4, of: course)
        try await engine.renameCourse(course, to: "Four Holes")
        let round = try await engine.startRound(on: try await engine.course(matching: "Four Holes"), players: [ann])
        #expect(try await engine.read(.card(of: round)).pars == [3, 4, 3, 3])
        try await engine.deleteCourse(course)
        await #expect(throws: ReplicaError.courseDeleted(name: "Four Holes")) { try await engine.startRound(on: course, players: [ann]) }
        let nowhere = CourseID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "course", text: nowhere.description)) {
            try await engine.setPar(3, hole: 1, of: nowhere)
        }
        try await engine.close()
    }
}
