import Foundation
import HyzerDomain
import HyzerKit
import Testing

/// docs/rules.md, "Current score" and "Discrepancies", across real replicas that sync.
@Suite struct DisputeTests {
    /// Ava's phone (owns Ava, who organizes the round), Ben's phone (owns Ben) and a watch
    /// that nobody has linked yet, all synced, with a round on Morley Field for Ava and Ben.
    final class Fixture: Sendable {
        let ava: TestReplica
        let ben: TestReplica
        let watch: TestReplica
        let round: Round
        let avaID: ParticipantID
        let benID: ParticipantID

        init() throws {
            ava = try TestReplica("ava-phone", owner: "Ava", keySeed: 41)
            ben = try TestReplica("ben-phone", owner: "Ben", keySeed: 42, start: baseTime + 3_000)
            watch = try TestReplica("ava-watch", kind: .watch, keySeed: 43, start: baseTime + 6_000)
            try syncAll([ava, ben, watch])
            round = try ava.replica.startRound(course: "Morley Field", players: ["Ava", "Ben"])
            try syncAll([ava, ben, watch])
            avaID = ParticipantID(player: try ava.replica.resolvePlayer("Ava"))
            benID = ParticipantID(player: try ava.replica.resolvePlayer("Ben"))
        }

        var all: [TestReplica] { [ava, ben, watch] }
        var roundID: String { round.id.lowercased }

        func evaluation(on test: TestReplica) throws -> RoundEvaluation {
            try #require(try test.replica.roundView(round.id)).evaluation
        }

        /// Every replica's evaluation, after checking that all of them print the same views.
        func evaluationsAgree(sourceLocation: SourceLocation = #_sourceLocation) throws -> RoundEvaluation {
            let reference = try roundsJSON(ava.replica)
            for test in all.dropFirst() {
                #expect(
                    try roundsJSON(test.replica) == reference, "\(test.replica.directory.lastPathComponent)", sourceLocation: sourceLocation
                )
                #expect(try test.replica.digest() == ava.replica.digest(), sourceLocation: sourceLocation)
            }
            return try evaluation(on: ava)
        }
    }

    @Test func equalScoresFromTwoDevicesMergeSilently() throws {
        let f = try Fixture()
        let fromAva = try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 3)
        let fromBen = try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 3)
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        let score = evaluation.score(player: f.benID, hole: 1)
        #expect(score.strokes == 3)
        #expect(!score.isDisputed)
        #expect(Set(score.leaves.map(\.id)) == [fromAva.id, fromBen.id])
        #expect(evaluation.discrepancies.isEmpty)
        let ben = try #require(evaluation.standings.first { $0.playerID == f.benID })
        #expect(ben.totalStrokes == 3)
        #expect(ben.holesPlayed == 1)
        #expect(ben.disputedHoles == 0)
        #expect(evaluation.breakdown(player: f.benID)?.holes.first?.disputed == false)
    }

    @Test func unequalScoresAreADiscrepancyOnEveryReplica() throws {
        let f = try Fixture()
        let fromAva = try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        let fromBen = try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        #expect(evaluation.discrepancies.count == 1)
        let discrepancy = try #require(evaluation.discrepancies.first)
        #expect(discrepancy.playerID == f.benID)
        #expect(discrepancy.name == "Ben")
        #expect(discrepancy.hole == 1)
        #expect(Set(discrepancy.leaves.map(\.eventID)) == [ScoreEventID(fromAva.id), ScoreEventID(fromBen.id)])
        #expect(Set(discrepancy.leaves.map(\.strokes)) == [4, 5])
        #expect(Set(discrepancy.leaves.map(\.deviceID)) == [f.ava.author, f.ben.author])
        #expect(Set(discrepancy.leaves.compactMap(\.reportedByPlayerID)) == [f.avaID, f.benID])

        // Standings count the leaf with the smallest (createdAt, id): the first listed.
        let chosen = discrepancy.leaves[0].strokes
        let ben = try #require(evaluation.standings.first { $0.playerID == f.benID })
        #expect(ben.totalStrokes == chosen)
        #expect(ben.disputedHoles == 1)
        #expect(evaluation.status == .active)
    }

    @Test func theOrganizersResolutionEndsTheDisputeEverywhere() throws {
        let f = try Fixture()
        let fromAva = try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        let fromBen = try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        try syncAll(f.all)

        let resolution = try f.ava.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        #expect(Set(resolution.supersedes) == [fromAva.id, fromBen.id])
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        #expect(evaluation.discrepancies.isEmpty)
        let score = evaluation.score(player: f.benID, hole: 1)
        #expect(score.strokes == 5)
        #expect(score.leaves.map(\.id) == [resolution.id])
    }

    @Test func aLinkedDeviceMayResolveAndFinish() throws {
        let f = try Fixture()
        try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        try syncAll(f.all)

        #expect(throws: ReplicaError.notOrganizerDevice(round: f.roundID, organizer: "Ava")) {
            try f.watch.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        }
        try f.ava.replica.linkDevice(f.watch.author.hex, owner: "Ava")
        try syncAll(f.all)
        #expect(try f.watch.replica.ownership().device(f.watch.author, owns: f.avaID))

        let resolution = try f.watch.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        try f.watch.replica.finishRound(f.roundID, force: true)
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        #expect(evaluation.discrepancies.isEmpty)
        #expect(evaluation.score(player: f.benID, hole: 1).leaves.map(\.id) == [resolution.id])
        #expect(evaluation.status == .completed)
        #expect(evaluation.finish?.deviceID == f.watch.author)
        #expect(try f.ben.replica.history().map(\.round.description) == [f.roundID])
    }

    /// Ava's phone links the watch; the watch links Ben's phone to Ava too. Ben's phone hears
    /// the second link before the first: it becomes an owner only once both are in.
    @Test func aLinkByALinkedDeviceCountsWhateverOrderTheLinksArriveIn() throws {
        let f = try Fixture()
        try f.ava.replica.linkDevice("ava-watch", owner: "Ava")
        try f.watch.replica.pull(from: f.ava.replica)
        try f.watch.replica.linkDevice("ben-phone", owner: "Ava")

        // Only the watch's own log: its link, without Ava's phone's link that it relays.
        let watchLog = try f.watch.replica.delta(above: f.ben.replica.versionVector()).filter { $0.author == f.watch.author }
        #expect(watchLog.count == 1)
        #expect(try f.ben.replica.ingest(watchLog).opsApplied == 1)
        #expect(try !f.ben.replica.ownership().device(f.ben.author, owns: f.avaID), "the watch's link is not proven yet")
        #expect(throws: ReplicaError.notOrganizerDevice(round: f.roundID, organizer: "Ava")) {
            try f.ben.replica.finishRound(f.roundID, force: true)
        }

        try f.ben.replica.pull(from: f.ava.replica)
        #expect(try f.ben.replica.ownership().device(f.ben.author, owns: f.avaID))
        try f.ben.replica.finishRound(f.roundID, force: true)
        try syncAll(f.all)
        #expect(try f.evaluationsAgree().finish?.deviceID == f.ben.author)
    }

    @Test func linkingAgainIsANoOp() throws {
        let f = try Fixture()
        try f.ava.replica.linkDevice("ava-watch", owner: "Ava")
        let before = try Fingerprint(f.ava.replica)
        try f.ava.replica.linkDevice("ava-watch", owner: "Ava")
        #expect(try Fingerprint(f.ava.replica) == before)
    }

    @Test func aCorrectionFromAnotherDeviceIsIgnoredAndStaysALeaf() throws {
        let f = try Fixture()
        let original = try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 2, strokes: 3)
        try syncAll(f.all)
        // The command refuses; a hostile or buggy build of Ben's phone writes the op anyway.
        #expect(throws: ReplicaError.notYourEvent(event: original.id.lowercased, device: f.ava.author.short)) {
            try f.ben.replica.correct(event: original.id.lowercased, strokes: 4)
        }
        let forged = try appendRaw(
            .scoreRecorded(
                ScoreRecord(
                    roundID: f.round.id, hole: 2, player: .player(f.benID.uuid), strokes: 4,
                    supersedes: [original.id], reportedBy: .player(f.benID.uuid))),
            to: f.ben, clock: HLCTimestamp(physicalMilliseconds: baseTime + 60_000))
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        let score = evaluation.score(player: f.benID, hole: 2)
        #expect(score.isDisputed)
        #expect(Set(score.leaves.map(\.id)) == [original.id, forged.entityID])
        #expect(evaluation.discrepancies.map(\.hole) == [2])
        #expect(evaluation.ignoredEvents.isEmpty, "the event itself is valid; only its supersession does not count")
    }

    @Test func aDeviceCannotMakeItselfTheOwnerOfAnotherPlayer() throws {
        let f = try Fixture()
        try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        let fromBen = try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        try syncAll(f.all)
        // Ben's phone signs a link of itself to Ava, then a "resolution".
        try appendRaw(
            .deviceLinked(device: f.ben.author, playerID: f.avaID.uuid), to: f.ben,
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 60_000))
        try syncAll(f.all)
        #expect(try !f.ava.replica.ownership().device(f.ben.author, owns: f.avaID))
        #expect(throws: ReplicaError.notOrganizerDevice(round: f.roundID, organizer: "Ava")) {
            try f.ben.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        }
        let before = try f.evaluationsAgree()
        try appendRaw(
            .scoreRecorded(
                ScoreRecord(
                    roundID: f.round.id, hole: 1, player: .player(f.benID.uuid), strokes: 5,
                    supersedes: before.score(player: f.benID, hole: 1).leaves.map(\.id), reportedBy: nil)),
            to: f.ben, clock: HLCTimestamp(physicalMilliseconds: baseTime + 61_000))
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        // Ben's own earlier event is superseded (same device); Ava's stays a leaf.
        let leaves = evaluation.score(player: f.benID, hole: 1).leaves
        #expect(leaves.count == 2)
        #expect(!leaves.contains { $0.id == fromBen.id })
        #expect(leaves.contains { $0.deviceID == f.ava.author })
        #expect(evaluation.discrepancies.count == 1)
    }

    /// Two devices of the organizer resolve the same dispute without seeing each other.
    @Test(arguments: [(4, 4, false), (4, 5, true)])
    func concurrentResolutions(phoneStrokes: Int, watchStrokes: Int, stillDisputed: Bool) throws {
        let f = try Fixture()
        try f.ava.replica.linkDevice("ava-watch", owner: "Ava")
        try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 4)
        try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 5)
        try syncAll(f.all)

        try f.ava.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: phoneStrokes)
        try f.watch.replica.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: watchStrokes)
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        let score = evaluation.score(player: f.benID, hole: 1)
        #expect(score.leaves.count == 2, "both resolutions are leaves")
        #expect(Set(score.leaves.map(\.deviceID)) == [f.ava.author, f.watch.author])
        #expect(score.isDisputed == stillDisputed)
        #expect(evaluation.discrepancies.count == (stillDisputed ? 1 : 0))
    }

    @Test func aScoreWrittenOfflineAfterTheFinishIsIgnoredButAResolutionCounts() throws {
        let f = try Fixture()
        let avaScore = try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 3, strokes: 4)
        try syncAll(f.all)
        try f.ava.replica.finishRound(f.roundID, force: true)
        // Ben's phone has not heard of the finish, and its clock runs five minutes ahead.
        f.ben.clock.set(baseTime + 300_000)
        let late = try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 3, strokes: 6)
        try syncAll(f.all)

        var evaluation = try f.evaluationsAgree()
        #expect(evaluation.status == .completed)
        #expect(evaluation.ignoredEvents.map(\.event.id) == [late.id])
        #expect(evaluation.ignoredEvents.map(\.reason) == [.afterFinish])
        #expect(evaluation.score(player: f.benID, hole: 3).leaves.map(\.id) == [avaScore.id])
        #expect(throws: ReplicaError.roundCompleted(round: f.roundID)) {
            try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 4, strokes: 3)
        }

        // The organizer may still resolve after the finish.
        let resolution = try f.ava.replica.resolve(round: f.roundID, player: "Ben", hole: 3, strokes: 5)
        try syncAll(f.all)
        evaluation = try f.evaluationsAgree()
        #expect(evaluation.score(player: f.benID, hole: 3).leaves.map(\.id) == [resolution.id])
        #expect(evaluation.score(player: f.benID, hole: 3).strokes == 5)
    }

    @Test func aFinishFromANonOrganizerDeviceIsIgnoredEverywhere() throws {
        let f = try Fixture()
        try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: 1, strokes: 3)
        #expect(throws: ReplicaError.notOrganizerDevice(round: f.roundID, organizer: "Ava")) {
            try f.ben.replica.finishRound(f.roundID, force: true)
        }
        try appendRaw(
            .roundFinished(roundID: f.round.id, force: true), to: f.ben,
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 60_000))
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        #expect(evaluation.finish == nil)
        #expect(evaluation.status == .active)
        #expect(try f.ava.replica.history().isEmpty)
        // Scores still go in, and the organizer can still finish. (Ben's phone wrote a raw op
        // through ingest, which is how it learns of ops of its key that it did not write: it
        // now refuses to write, so Ava's phone scores.)
        try f.ava.replica.recordScore(round: f.roundID, player: "Ben", hole: 2, strokes: 3)
        try f.ava.replica.finishRound(f.roundID, force: true)
        try syncAll(f.all)
        #expect(try f.evaluationsAgree().finish?.deviceID == f.ava.author)
    }

    @Test func aFullRoundFinishesAndEntersHistoryOnEveryReplica() throws {
        let f = try Fixture()
        for hole in 1...18 {
            try f.ava.replica.recordScore(round: f.roundID, player: "Ava", hole: hole, strokes: hole == 5 ? 2 : 3)
            try f.ben.replica.recordScore(round: f.roundID, player: "Ben", hole: hole, strokes: hole == 7 ? 5 : 3)
        }
        try syncAll(f.all)
        #expect(try f.evaluationsAgree().status == .awaitingFinalization)
        try f.ava.replica.finishRound(f.roundID, force: false)
        try syncAll(f.all)

        let evaluation = try f.evaluationsAgree()
        #expect(evaluation.status == .completed)
        #expect(evaluation.standings.map(\.name) == ["Ava", "Ben"])
        #expect(evaluation.standings.map(\.formatted) == ["-1", "+2"])
        #expect(evaluation.standings.map(\.position) == [1, 2])
        for test in f.all {
            let history = try test.replica.history()
            #expect(history.map(\.round.description) == [f.roundID])
            #expect(history.first?.winners == ["Ava"])
        }
    }
}
