import Foundation
import HyzerEngine
import HyzerTestSupport
import Testing

/// The queries a scoring app's screens need (docs/embedding.md, "Queries"): live lists of rounds,
/// players and devices and one round, each item `Identifiable` with typed ids, consumed from the
/// main actor, and every value an app caches `Codable` both ways.
@Suite struct EngineQueryTests {
    let directory = TemporaryDirectory("engine-queries")

    /// The first value of `query` that satisfies `condition`, each checked to arrive on the
    /// main actor (bounded by the test's time limit).
    @MainActor func first<Value>(_ query: LiveQuery<Value>, where condition: (Value) -> Bool) async throws -> Value? {
        for try await value in query {
            MainActor.preconditionIsolated("a live query's value arrived off the main actor")
            if condition(value) { return value }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(10))) @MainActor func roundsPlayersAndDevicesAreLiveFromTheMainActor() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        #expect(try await first(engine.observe(.rounds)) { _ in true } == [])
        #expect(try await first(engine.observe(.players)) { _ in true }?.map(\.name) == ["Ann"])

        // Each observer follows from before the change it waits for.
        let course = try await engine.addCourse(named: "Two Holes", pars: [3, 4])
        let listing = Task { @MainActor in try await first(engine.observe(.rounds)) { $0.count == 1 } }
        let round = try await engine.startRound(on: course, players: [ann], guests: ["Dee"])
        let started = try #require(try await listing.value).first
        #expect(started?.id == round)
        #expect(started?.course == course)
        #expect(started?.courseName == "Two Holes")
        #expect(started?.status == .active)
        #expect(started?.organizer == .player(ann))
        #expect(started?.pars == [3, 4])
        #expect(started?.participants.map(\.name) == ["Ann", "Dee"])
        #expect(started?.participants.first?.id == .player(ann))

        let completed = Task { @MainActor in try await first(engine.observe(.rounds)) { $0.first?.status == .completed } }
        try await engine.finishRound(round, force: true)
        #expect(try await completed.value != nil, "a finished round is listed as completed")
        #expect(try await engine.read(.round(round)).status == .completed)
        let missing = RoundID(UUID())
        await #expect(throws: ReplicaError.unknown(kind: "round", text: missing.description)) { try await engine.read(.round(missing)) }

        let ben = try await engine.addPlayer(named: "Ben")
        let aliased = Task { @MainActor in
            try await first(engine.observe(.players)) { $0.contains { $0.id == ben && $0.aliases == ["Benny"] } }
        }
        try await engine.addAlias("Benny", for: ben)
        #expect(try await aliased.value?.map(\.name) == ["Ann", "Ben"])

        let devices = try await engine.read(.devices)
        #expect(devices.map(\.id) == [engine.device])
        #expect(devices.first?.name == "phone")
        #expect(devices.first?.kind == .phone)
        try await engine.close()
    }

    @Test func idsAndListingsEncodeAsAnAppCachesThem() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann], guests: ["Dee"])
        let (encoder, decoder) = (JSONEncoder(), JSONDecoder())

        #expect(String(decoding: try encoder.encode(round), as: UTF8.self) == "\"\(round.description)\"", "an id encodes as its text")
        #expect(String(decoding: try encoder.encode(engine.device), as: UTF8.self) == "\"\(engine.device.hex)\"")
        let dee = try #require(try await engine.participants(named: "Dee", in: round).first)
        let participants: [ParticipantID] = [.player(ann), dee]
        #expect(try decoder.decode([ParticipantID].self, from: try encoder.encode(participants)) == participants)
        #expect(throws: Swift.DecodingError.self) { try decoder.decode(PlayerID.self, from: Data("\"guest:x\"".utf8)) }
        #expect(throws: Swift.DecodingError.self) { try decoder.decode(DeviceID.self, from: Data("\"abc\"".utf8)) }

        let rounds = try await engine.read(.rounds)
        #expect(try decoder.decode([RoundListing].self, from: try encoder.encode(rounds)) == rounds)
        let players = try await engine.read(.players)
        #expect(try decoder.decode([PlayerListing].self, from: try encoder.encode(players)) == players)
        let devices = try await engine.read(.devices)
        #expect(try decoder.decode([Device].self, from: try encoder.encode(devices)) == devices)
        try await engine.createGroup()
        let members = try await engine.read(.members)
        #expect(try decoder.decode([GroupMember].self, from: try encoder.encode(members)) == members)
        try await engine.close()
    }

    @Test func documentsCarryTypedIdsAndStatusesAndWriteThemAsText() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann], guests: ["Dee"])
        let dee = try #require(try await engine.participants(named: "Dee", in: round).first)
        #expect(try await engine.read(.standings(of: round)).status == .active)
        try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 3)
        try await engine.finishRound(round, force: true)

        let document = try #require(try await engine.roundDocument(round))
        let (status, organizer, participants): (RoundStatus, ParticipantID?, [ParticipantID]) =
            (document.status, document.organizerID, document.participants.map(\.id))
        #expect(status == .completed && organizer == .player(ann) && participants == [.player(ann), dee])
        let standings = try await engine.read(.standings(of: round))
        #expect(standings.status == .completed)
        let played: [RoundID] = try await engine.read(.history(of: ann)).rounds.map(\.round)
        #expect(played == [round])
        #expect(try await engine.history().map(\.round) == [round])

        let json = String(decoding: try JSONEncoder().encode(document), as: UTF8.self)
        #expect(json.contains("\"status\":\"completed\"") && json.contains("\"organizerID\":\"\(ann)\""))
        #expect(json.contains("\"id\":\"\(dee)\""), "a guest is written `guest:` and its UUID")
        try await engine.close()
    }
}
