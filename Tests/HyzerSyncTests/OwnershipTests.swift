import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

/// docs/replication.md, "Groups and who may sync": ownership of a player comes only from creating it
/// or from a link op signed by a device that already owns it, and only a device owning a
/// round's organizer may resolve or finish it — on every replica, after the ops travel
/// through a shared folder.
@Suite struct OwnershipTests {
    /// Ann's phone (creates and owns Ann, who organizes the round), Ben's phone (owns Ben) and
    /// a watch nobody has linked, synced through a folder, with a round for Ann and Ben.
    final class Club: Sendable {
        let shared = SharedDirectory()
        let ann: Peer
        let ben: Peer
        let watch: Peer
        let round: Round
        let annID: ParticipantID
        let benID: ParticipantID

        init() throws {
            ann = try Peer("ann-phone", owner: "Ann", keySeed: 31)
            ben = try Peer("ben-phone", owner: "Ben", keySeed: 32, start: baseTime + 3_000)
            watch = try Peer("ann-watch", kind: .watch, keySeed: 33, start: baseTime + 6_000)
            try syncUntilQuiet([ann, ben, watch], shared)
            round = try ann.replica.startRound(course: "Morley Field", players: ["Ann", "Ben"])
            try syncUntilQuiet([ann, ben, watch], shared)
            annID = ParticipantID(player: try ann.replica.resolvePlayer("Ann"))
            benID = ParticipantID(player: try ann.replica.resolvePlayer("Ben"))
        }

        var all: [Peer] { [ann, ben, watch] }
        var roundID: String { round.id.lowercased }

        func sync(sourceLocation: SourceLocation = #_sourceLocation) throws {
            try syncUntilQuiet(all, shared, sourceLocation: sourceLocation)
        }

        /// Ann's and Ben's devices disagree on Ben's first hole; every replica sees it.
        func dispute() throws -> (fromAnn: ScoreEvent, fromBen: ScoreEvent) {
            let fromAnn = try ann.replica.recordScore(round: roundID, player: "Ben", hole: 1, strokes: 4)
            let fromBen = try ben.replica.recordScore(round: roundID, player: "Ben", hole: 1, strokes: 5)
            try sync()
            return (fromAnn, fromBen)
        }

        /// The round's evaluation, after checking every replica derives the same one.
        func evaluation(sourceLocation: SourceLocation = #_sourceLocation) throws -> RoundEvaluation {
            let evaluations = try all.map { try #require(try $0.replica.roundView(round.id), sourceLocation: sourceLocation).evaluation }
            #expect(
                evaluations.allSatisfy { $0 == evaluations[0] }, "every replica evaluates the round alike", sourceLocation: sourceLocation)
            return evaluations[0]
        }

        /// The owners of `player` on every replica, after checking they agree.
        func owners(of player: ParticipantID, sourceLocation: SourceLocation = #_sourceLocation) throws -> Set<AuthorID> {
            let ownerships = try all.map { try $0.replica.ownership() }
            #expect(
                ownerships.allSatisfy { $0 == ownerships[0] }, "every replica derives the same ownership", sourceLocation: sourceLocation)
            return ownerships[0].owners[player] ?? []
        }
    }

    /// Ben's phone signs a link of itself to Ann (a player it neither created nor was linked
    /// to), then a "resolution" and a "finish" of Ann's round.
    @Test func aDeviceCannotClaimAPlayerItDidNotCreate() throws {
        let club = try Club()
        let (fromAnn, fromBen) = try club.dispute()
        try club.ben.appendRaw(.deviceLinked(device: club.ben.author, playerID: club.annID.uuid), at: baseTime + 60_000)
        try club.sync()

        #expect(try club.owners(of: club.annID) == [club.ann.author])
        #expect(try club.owners(of: club.benID) == [club.ben.author])
        #expect(throws: ReplicaError.notOrganizerDevice(round: club.roundID, organizer: "Ann")) {
            try club.ben.replica.resolve(round: club.roundID, player: "Ben", hole: 1, strokes: 5)
        }
        #expect(throws: ReplicaError.notOrganizerDevice(round: club.roundID, organizer: "Ann")) {
            try club.ben.replica.finishRound(club.roundID, force: true)
        }

        // The ops the commands refuse, written anyway.
        try club.ben.appendRaw(
            .scoreRecorded(
                ScoreRecord(
                    roundID: club.round.id, hole: 1, player: .player(club.benID.uuid), strokes: 5,
                    supersedes: [fromAnn.id, fromBen.id], reportedBy: nil)),
            at: baseTime + 61_000)
        try club.ben.appendRaw(.roundFinished(roundID: club.round.id, force: true), at: baseTime + 62_000)
        try club.sync()

        let evaluation = try club.evaluation()
        #expect(evaluation.finish == nil)
        #expect(evaluation.status == .active)
        let score = evaluation.score(player: club.benID, hole: 1)
        #expect(score.isDisputed)
        #expect(score.leaves.contains { $0.id == fromAnn.id }, "Ben's resolution does not supersede Ann's event")
        #expect(evaluation.discrepancies.map(\.hole) == [1])
        #expect(try club.owners(of: club.annID) == [club.ann.author])
    }

    /// Ben's phone links the watch to Ann: a link signed by a device that does not own Ann.
    @Test func aLinkSignedByANonOwnerIsIgnored() throws {
        let club = try Club()
        let (fromAnn, fromBen) = try club.dispute()
        try club.ben.appendRaw(.deviceLinked(device: club.watch.author, playerID: club.annID.uuid), at: baseTime + 60_000)
        try club.sync()

        #expect(try club.owners(of: club.annID) == [club.ann.author])
        #expect(throws: ReplicaError.notOrganizerDevice(round: club.roundID, organizer: "Ann")) {
            try club.watch.replica.resolve(round: club.roundID, player: "Ben", hole: 1, strokes: 4)
        }
        try club.watch.appendRaw(
            .scoreRecorded(
                ScoreRecord(
                    roundID: club.round.id, hole: 1, player: .player(club.benID.uuid), strokes: 4,
                    supersedes: [fromAnn.id, fromBen.id], reportedBy: nil)),
            at: baseTime + 61_000)
        try club.watch.appendRaw(.roundFinished(roundID: club.round.id, force: true), at: baseTime + 62_000)
        try club.sync()

        let evaluation = try club.evaluation()
        #expect(evaluation.finish == nil)
        #expect(evaluation.score(player: club.benID, hole: 1).leaves.count == 3)
        #expect(evaluation.discrepancies.count == 1)
    }

    /// Ben's phone signs a link of itself to Ann in the name of Ann's phone (the op names Ann's
    /// phone as its author), and puts it in a bundle of its own in the folder.
    @Test func aLinkForgedInTheOwnersNameIsRefusedByEveryReplica() throws {
        let club = try Club()
        let annHead = try club.ann.replica.versionVector()[club.ann.author]
        let forged = SignedOp(
            keys: club.ben.keys, author: club.ann.author, sequence: annHead + 1, previousHash: try club.ann.headHash(),
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 60_000),
            payload: .deviceLinked(device: club.ben.author, playerID: club.annID.uuid))
        let path = try club.shared.plant(try club.ben.sealedBundle([AuthorSegment(ops: [forged])]), member: club.ben.author)

        for peer in [club.ann, club.watch] {
            let before = try StoreState(peer.replica)
            let report = try peer.sync(club.shared)
            #expect(report.rejected.count == 1)
            let rejection = try #require(report.rejected.first)
            #expect(rejection.file == path)
            #expect(rejection.reason.contains(club.ann.author.short) && rejection.reason.contains("does not verify"))
            #expect(report.bundlesRead == 1 && report.opsIngested == 0)
            #expect(try StoreState(peer.replica) == before)
        }
        #expect(try club.owners(of: club.annID) == [club.ann.author])

        // Ann's genuine next op, with the sequence number the forgery claimed, still travels.
        try club.ann.replica.addPlayer(name: "Cleo")
        try club.sync()
        #expect(try club.all.allSatisfy { try $0.replica.players().contains { $0.displayName == "Cleo" } })
        #expect(try club.owners(of: club.annID) == [club.ann.author])
    }

    @Test func aLinkSignedByTheOwnerIsHonouredOnEveryReplica() throws {
        let club = try Club()
        _ = try club.dispute()
        try club.ann.replica.linkDevice(club.watch.author.hex, owner: "Ann")
        try club.sync()
        #expect(try club.owners(of: club.annID) == [club.ann.author, club.watch.author])

        let resolution = try club.watch.replica.resolve(round: club.roundID, player: "Ben", hole: 1, strokes: 4)
        try club.watch.replica.finishRound(club.roundID, force: true)
        try club.sync()

        let evaluation = try club.evaluation()
        #expect(evaluation.score(player: club.benID, hole: 1).leaves.map(\.id) == [resolution.id])
        #expect(evaluation.discrepancies.isEmpty)
        #expect(evaluation.status == .completed)
        #expect(evaluation.finish?.deviceID == club.watch.author)
    }

    @Test func linkingFromANonOwnerIsRefused() throws {
        let club = try Club()
        let before = try StoreState(club.ben.replica)
        #expect(throws: ReplicaError.notOwner(player: "Ann")) {
            try club.ben.replica.linkDevice(club.watch.author.hex, owner: "Ann")
        }
        #expect(throws: ReplicaError.notOwner(player: "Ann")) {
            try club.watch.replica.linkDevice(club.watch.author.hex, owner: "Ann")
        }
        #expect(try StoreState(club.ben.replica) == before)
        for peer in club.all {
            let report = try peer.sync(club.shared)
            #expect(report.opsIngested == 0 && report.bundlesRead == 0 && report.bundlesWritten == 0)
        }
        #expect(try club.owners(of: club.annID) == [club.ann.author])
    }
}
