import Foundation
import HyzerEngine
import HyzerTestSupport
import Observation
import Testing

/// A leaderboard screen's model as a SwiftUI app writes it: `@Observable`, on the main actor,
/// following a live query of the engine (docs/embedding.md, "An app's model").
@Observable @MainActor
final class StandingsModel {
    /// The leaderboard, best first.
    private(set) var entries: [StandingsEntry] = []
    /// Why following stopped, if it did.
    private(set) var failure: String?
    /// How many values arrived, each checked to run on the main actor's executor.
    @ObservationIgnored private(set) var valuesOnTheMainActor = 0
    @ObservationIgnored private var following: Task<Void, Never>?

    /// Follows the standings of `round` until `stop()`.
    func follow(_ round: RoundID, on engine: HyzerEngine) {
        following?.cancel()
        following = Task { [weak self] in
            do {
                for try await standings in engine.observe(.standings(of: round)) {
                    // The loop's body runs on the iterating task's actor, here the main actor: the
                    // engine reads on its own queue and hands the value over, with no hop to write.
                    // Checked at run time: a value on another executor stops the test here.
                    MainActor.preconditionIsolated("an observation's value arrived off the main actor")
                    self?.valuesOnTheMainActor += 1
                    self?.entries = standings.standings
                }
            } catch {
                self?.failure = error.localizedDescription
            }
        }
    }

    func stop() {
        following?.cancel()
        following = nil
    }
}

@Suite struct ObservableModelTests {
    let directory = TemporaryDirectory("engine-app")

    /// Runs `action`, then waits until `model`'s `entries` changed, through Observation's own
    /// tracking (what SwiftUI redraws on), registered before `action` starts.
    @MainActor func change(of model: StandingsModel, after action: () async throws -> Void) async rethrows {
        let (changed, signal) = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = model.entries
        } onChange: {
            signal.yield()
        }
        try await action()
        for await _ in changed { break }
    }

    @Test(.timeLimit(.minutes(10))) @MainActor func anObservableModelSeesAScoreRecordedThroughTheEngine() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let course = try await engine.addCourse(named: "Three Holes", pars: [3, 3, 3])
        let round = try await engine.startRound(on: course, players: [ann])

        let model = StandingsModel()
        await change(of: model) { model.follow(round, on: engine) }
        #expect(model.entries.map(\.totalStrokes) == [0])

        try await change(of: model) {
            try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 4)
        }
        #expect(model.entries.map(\.totalStrokes) == [4])
        #expect(model.entries.map(\.name) == ["Ann"])
        #expect(model.valuesOnTheMainActor == 2, "the first value and the scored one, each on the main actor")
        #expect(model.failure == nil)
        model.stop()
        try await engine.close()
    }
}
