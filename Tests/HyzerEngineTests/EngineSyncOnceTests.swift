import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Logging
import Synchronization
import Testing

@testable import HyzerEngine

/// One sync at a time through the façade (docs/embedding.md, "Sync"), as `hyzer-peer sync`,
/// `import` and `export` run it: joining with an invitation, receipts signed by the engine,
/// and the events a server's metrics receive.
@Suite struct EngineSyncOnceTests {
    let directory = TemporaryDirectory("engine-sync-once")
    let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    /// An organizer with a group, a one-player round and an invitation token.
    func organizer() async throws -> (HyzerEngine, GroupID, RoundID, PlayerID, String) {
        let (engine, group, round, ann, token, _) = try await organizerAndCourse()
        return (engine, group, round, ann, token)
    }

    func organizerAndCourse() async throws -> (HyzerEngine, GroupID, RoundID, PlayerID, String, CourseID) {
        let engine = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        let group = try await engine.createGroup()
        let course = try #require(try await engine.courses(named: "Morley Field").first)
        let ann = try #require(try await engine.owner())
        let round = try await engine.startRound(on: course, players: [ann])
        return (engine, group, round, ann, try await engine.invite(uses: 2), course)
    }

    /// The phone asks through the folder, the organizer's next folder sync admits it, and the
    /// phone's next one joins and syncs; a finish that arrives is signed for by the engine.
    @Test func aDeviceJoinsThroughTheFolderAndSignsTheReceiptOfAFinish() async throws {
        let (laptop, group, round, ann, token, course) = try await organizerAndCourse()
        let folder = directory.path("shared")
        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        await #expect(throws: GroupError.noGroup(.sync)) { try await phone.syncFolder(folder) }
        try await phone.acceptInvitation(token: token)
        guard case .askedToJoin(let asked) = try await phone.syncFolder(folder) else {
            Issue.record("the phone did not ask to join")
            return
        }
        #expect(asked == group)
        guard case .synced(_, joined: nil) = try await laptop.syncFolder(folder) else {
            Issue.record("the laptop joined nothing: it was in the group")
            return
        }
        guard case .synced(_, let joined) = try await phone.syncFolder(folder) else {
            Issue.record("the phone was not admitted")
            return
        }
        #expect(joined == group)
        #expect(try await phone.read(.standings(of: round)).standings.count == 1, "the round came with the join's sync")

        // A round Ben plays, finished on the laptop: the phone owns a participant, so it signs.
        _ = try await laptop.syncFolder(folder)
        let ben = try #require(try await laptop.players(named: "Ben").first)
        let played = try await laptop.startRound(on: course, players: [ann, ben])
        try await laptop.finishRound(played, force: true)
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        let receipts = try Replica.open(at: phone.directory).receipts(round: played.uuid).map(\.device)
        #expect(receipts.contains(phone.device), "the engine signed the phone's receipt after the sync that brought the finish")
        try await phone.close()
        try await laptop.close()
    }

    /// A bundle file carries every op; importing it twice holds them already; the receipt of a
    /// finished round is signed at import.
    @Test func aBundleCarriesEveryOpAndItsImportSignsReceipts() async throws {
        let (laptop, _, _, ann, token, course) = try await organizerAndCourse()
        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        try await phone.acceptInvitation(token: token)
        let sync = try await laptop.startSync(SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0)), logger: quiet)
        var statuses = sync.statuses().makeAsyncIterator()
        var address: PeerAddress?
        while address == nil, let status = await statuses.next() { address = status.listening }
        let report = try await phone.syncPeer(TCPLink.Opener(address: try #require(address)), logger: quiet)
        #expect(report.joined == (try await laptop.group()))
        await sync.stop()

        // The exchange carried the phone's player Ben to the laptop: a round Ben plays, finished there.
        let ben = try #require(try await laptop.players(named: "Ben").first)
        let round = try await laptop.startRound(on: course, players: [ann, ben])
        try await laptop.finishRound(round, force: true)
        let bundle = try await laptop.exportBundle()
        #expect(bundle.count <= HyzerEngine.bundleBytesMax)
        let first = try await phone.importBundle(bundle)
        #expect(first.opsApplied > 0 && first.rejected.isEmpty)
        #expect(try await phone.importBundle(bundle).opsApplied == 0, "a second import holds every op already")
        let receipts = try Replica.open(at: phone.directory).receipts(round: round.uuid).map(\.device)
        #expect(receipts.contains(phone.device), "the engine signed the phone's receipt after the import")
        try await phone.close()
        try await laptop.close()
    }

    /// A server's plan receives every connection's progress and end; a device still waiting to be
    /// admitted is refused a server when the plan does not join first.
    @Test func aPlanReceivesConnectionEventsAndAServerNeedsAMember() async throws {
        let (laptop, _, _, _, token) = try await organizer()
        let events = EventLog()
        var plan = SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0))
        plan.joinsFirst = false
        plan.connectionProgress = { events.add("\($0)") }
        plan.connectionEnded = { events.add("ended \($0.failure == nil)") }
        let sync = try await laptop.startSync(plan, logger: quiet)
        var statuses = sync.statuses().makeAsyncIterator()
        var address: PeerAddress?
        while address == nil, let status = await statuses.next() { address = status.listening }

        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone")
        try await phone.acceptInvitation(token: token)
        await #expect(throws: GroupError.awaitingAdmission(group: try #require(try await laptop.group()).uuid)) {
            try await phone.startSync(plan, logger: quiet)
        }
        _ = try await phone.syncPeer(TCPLink.Opener(address: try #require(address)), logger: quiet)
        let deadline = ContinuousClock.now + .seconds(10)
        while !events.lines.contains("ended true"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(events.lines.contains { $0.hasPrefix("opened") }, "\(events.lines)")
        #expect(events.lines.contains("ended true"), "\(events.lines)")
        await sync.stop()
        try await phone.close()
        try await laptop.close()
    }

    /// The organizer removes a device: the group key moves to the next epoch, and removing it
    /// again returns the same removal.
    @Test func theOrganizerRemovesADeviceAndRekeys() async throws {
        let (laptop, _, _, _, token) = try await organizer()
        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone")
        try await phone.acceptInvitation(token: token)
        let folder = directory.path("shared")
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)
        let rekey = try await laptop.rekeyGroup()
        #expect(rekey.recipients == 2)
        let removal = try await laptop.removeMember(phone.device)
        #expect(removal.device == phone.device && removal.epoch == rekey.epoch + 1)
        #expect(try await laptop.removeMember(try await laptop.device(matching: "phone")) == removal)
        #expect(try await laptop.members().first { $0.id == phone.device }?.removed == true)
        try await phone.close()
        try await laptop.close()
    }
}

/// Lines told by a sync's events, from any thread.
private final class EventLog: Sendable {
    private let state = Mutex<[String]>([])
    func add(_ line: String) { state.withLock { $0.append(line) } }
    var lines: [String] { state.withLock { $0 } }
}
