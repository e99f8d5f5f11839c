import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// Finding one id from typed text (docs/embedding.md, "What it offers"): what the command line
/// resolves before it calls the engine's commands, refused with the replica's own errors.
@Suite struct EngineMatchingTests {
    let directory = TemporaryDirectory("engine-matching")

    @Test func textNamesOneEntityOrIsRefusedAsTheReplicaRefusesIt() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        #expect(try await engine.player(matching: "Ann") == ann)
        #expect(try await engine.player(matching: String(ann.description.prefix(8))) == ann)
        let twin = try await engine.addPlayer(named: "Ann")
        await #expect(
            throws: ReplicaError.ambiguous(
                kind: "player", text: "Ann", matches: [ann, twin].map { String($0.description.prefix(8)) }.sorted())
        ) {
            try await engine.player(matching: "Ann")
        }
        await #expect(throws: ReplicaError.unknown(kind: "player", text: "Zed")) { try await engine.player(matching: "Zed") }
        await #expect(throws: RoundError.noRoundYet) { try await engine.round(matching: "latest") }

        let course = try await engine.course(matching: "Morley Field")
        let ben = try await engine.addPlayer(named: "Ben")
        let round = try await engine.startRound(on: course, players: [ann, ben], guests: ["Dee"])
        #expect(try await engine.round(matching: "latest") == round)
        #expect(try await engine.participant(matching: "Ben", in: round) == .player(ben))
        let dee = try await engine.participant(matching: "Dee", in: round)
        #expect(dee.isGuest && dee.guest != nil && dee.player == nil, "Dee is a guest: \(dee)")
        await #expect(throws: ReplicaError.notAParticipant(player: "Ann", round: round.description)) {
            try await engine.participant(matching: twin.description, in: round)
        }
        try await engine.close()
    }

    /// A score that re-enters a hole this device scored names the event it corrects; finishing
    /// signs this device's receipt.
    @Test func aScoreShowsWhatItCorrectsAndAFinishIsSignedFor() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann])
        let first = try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 4)
        #expect(try await engine.scoreEvent(first, in: round)?.supersedes == [])
        let second = try await engine.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 3)
        #expect(try await engine.scoreEvent(second, in: round)?.supersedes == [first.uuid])
        try await engine.finishRound(round, force: true)
        let receipts = try Replica.open(at: engine.directory).receipts(round: round.uuid)
        #expect(receipts.map(\.device) == [engine.device], "the engine signed the organizer's receipt at the finish")
        try await engine.close()
    }

    /// A quick card in words scores the next unscored hole; a card naming nobody refuses it whole.
    @Test func aQuickCardScoresTheNextHole() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await engine.owner())
        let ben = try await engine.addPlayer(named: "Ben")
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann, ben])
        let card = try await engine.recordCard("ann birdie, Ben 4", round: round)
        #expect(card.hole == 1)
        #expect(card.lines.map(\.strokes) == [card.lines[0].par - 1, 4])
        #expect(try await engine.recordCard("Ann 3, Ben 3", round: round).hole == 2)
        await #expect(throws: CardError.self) { try await engine.recordCard("Zed 3", round: round) }
        #expect(try await engine.read(.card(of: round)).lines.allSatisfy { $0.holes.count == 18 })
        try await engine.close()
    }
}
