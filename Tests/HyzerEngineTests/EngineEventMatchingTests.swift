import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// Naming a score event by its id or an id prefix, as `correct` and `resolve --late` take it
/// (docs/embedding.md, "The command line"): matched as the replica matches it and refused with
/// the replica's own errors.
@Suite struct EngineEventMatchingTests {
    let directory = TemporaryDirectory("engine-event-matching")

    @Test func aPrefixNamesTheEventToCorrect() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann])
        let first = try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 4)
        #expect(try await engine.scoreEvent(matching: String(first.description.prefix(10))) == first)
        #expect(try await engine.scoreEvent(matching: first.description.uppercased()) == first)
        let corrected = try await engine.correct(try await engine.scoreEvent(matching: String(first.description.prefix(8))), strokes: 3)
        #expect(try await engine.scoreEvent(corrected, in: round)?.supersedes == [first.uuid])
        #expect(try await engine.scoreEvent(matching: corrected.description) == corrected)
        await #expect(throws: ReplicaError.unknown(kind: "event", text: "ffffffff")) { try await engine.scoreEvent(matching: "ffffffff") }
        // Every event shares the empty prefix: it names none of them.
        await #expect(throws: ReplicaError.self) { try await engine.scoreEvent(matching: "") }
        try await engine.close()
    }

    /// Ben's phone scores hole 2 before the organizer finishes; the score reaches the organizer
    /// after the finish, so the round lists it as late until the organizer counts it by prefix.
    @Test func aPrefixNamesTheLateScoreToCount() async throws {
        let folder = directory.path("shared")
        let laptop = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        _ = try await laptop.createGroup()
        let token = try await laptop.invite(uses: 1)
        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        _ = try await phone.acceptInvitation(token: token)
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)
        let ann = try #require(try await laptop.owner())
        let ben = try #require(try await phone.owner())
        let round = try await laptop.startRound(on: try await laptop.course(matching: "Morley Field"), players: [ann, ben])
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        let late = try await phone.recordScore(round: round, participant: .player(ben), hole: 2, strokes: 2)
        try await laptop.finishRound(round, force: true)
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)

        let prefix = String(late.description.prefix(8))
        #expect(try await laptop.lateScore(matching: prefix, in: round) == late)
        await #expect(throws: ReplicaError.unknown(kind: "late score", text: "ffffffff")) {
            try await laptop.lateScore(matching: "ffffffff", in: round)
        }
        // The phone finds the same late score but, not owning the organizer, cannot count it.
        #expect(try await phone.lateScore(matching: prefix, in: round) == late)
        await #expect(throws: ReplicaError.self) { try await phone.countLateScore(late, in: round) }

        let counted = try await laptop.countLateScore(try await laptop.lateScore(matching: prefix, in: round), in: round)
        #expect(try await laptop.scoreEvent(counted, in: round)?.supersedes.contains(late.uuid) == true)
        #expect(try #require(try await laptop.roundView(round)).evaluation.lateEvents.isEmpty)
        await #expect(throws: ReplicaError.unknown(kind: "late score", text: prefix)) {
            try await laptop.lateScore(matching: prefix, in: round)
        }
        try await phone.close()
        try await laptop.close()
    }
}
