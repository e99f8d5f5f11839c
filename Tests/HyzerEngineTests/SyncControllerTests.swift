import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Logging
import Testing

@testable import HyzerEngine

/// `startSync` (docs/embedding.md, "Sync"): what `serve` runs, started and stopped by an app,
/// joining with an invitation by itself, over TCP and over an app's own link.
@Suite struct SyncControllerTests {
    let directory = TemporaryDirectory("engine-sync")
    let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    /// Waits (bounded) until `condition` holds for a status of `controller`.
    func status(of controller: SyncController, seconds: Double = 20, _ condition: (SyncStatus) -> Bool) async -> SyncStatus? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if condition(controller.status) { return controller.status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// An organizer listens; a phone with only an invitation token starts syncing with it, is
    /// admitted, receives the round and sends its score back; stopping drains both.
    @Test func aDeviceWithATokenJoinsAndSyncsLiveThenStops() async throws {
        let organizer = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        let group = try await organizer.createGroup()
        let course = try #require(try await organizer.courses(named: "Morley Field").first)
        let ann = try #require(try await organizer.owner())
        let round = try await organizer.startRound(on: course, players: [ann])
        let token = try await organizer.invite()
        let listening = try await organizer.startSync(SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0)), logger: quiet)
        let address = try #require(await status(of: listening) { $0.listening != nil }?.listening)

        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        await #expect(throws: EngineError.notInAGroup) { try await phone.startSync(SyncPlan(peers: [address])) }
        try await phone.acceptInvitation(token: token)
        let dialing = try await phone.startSync(SyncPlan(peers: [address], folderInterval: .milliseconds(200)), logger: quiet)
        var statuses = dialing.statuses().makeAsyncIterator()
        #expect(await statuses.next()?.stopped == false, "the status now comes first")

        #expect(try await eventually { try await phone.group() == group }, "the phone was never admitted")
        #expect(await eventually { (try? await phone.read(.standings(of: round))) != nil }, "the round never reached the phone")
        let peers = await status(of: listening) { $0.peers.map(\.peer) == [phone.device] }?.peers
        #expect(peers?.first?.lag == 0, "the phone holds what the laptop holds")
        try await phone.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 3)
        #expect(
            try await eventually { try await organizer.read(.standings(of: round)).standings.first?.totalStrokes == 3 },
            "the phone's score never reached the laptop")

        await dialing.stop()
        var last: SyncStatus?
        while let next = await statuses.next() { last = next }
        #expect(last?.stopped == true, "the last status says the sync stopped, then the stream ends")
        #expect(await status(of: listening) { $0.peers.isEmpty } != nil, "the laptop saw the phone go")
        try await phone.close()
        try await organizer.close()
        #expect(listening.status.stopped, "closing the engine stops its sync")
    }

    /// An app's own transport: the phone dials through a `ByteLinkOpener` of in-memory links, at
    /// whose far end the laptop's store listens.
    @Test func aSyncOverAnAppsOwnLink() async throws {
        let laptop = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        try await laptop.createGroup()
        let course = try #require(try await laptop.courses(named: "Morley Field").first)
        let round = try await laptop.startRound(on: course, players: [try #require(try await laptop.owner())])
        let token = try await laptop.invite()
        // The app's other side: its transport hands each incoming link to a listener on the laptop's store.
        let far = try Replica.open(at: laptop.directory)
        let opener = InMemoryOpener(replica: far, logger: quiet)

        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone")
        try await phone.acceptInvitation(token: token)
        let sync = try await phone.startSync(SyncPlan(links: [opener], folderInterval: .milliseconds(200)), logger: quiet)
        #expect(await eventually { (try? await phone.read(.standings(of: round))) != nil }, "the round never crossed the link")
        await sync.stop()
        try await phone.close()
        try await laptop.close()
        try far.close()
    }
}

extension SyncControllerTests {
    /// `SyncPlan.discover` on an in-process LAN: a phone holding only a token finds the laptop
    /// that advertises the invitation, is admitted, and both list each other as discovered.
    @Test func aDeviceWithATokenIsAdmittedThroughDiscoveryWithNoAddress() async throws {
        let lan = InMemoryDiscovery()
        let laptop = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        let group = try await laptop.createGroup()
        let token = try await laptop.invite()
        var plan = SyncPlan(listen: PeerAddress(host: "0.0.0.0", port: 0))
        plan.discover = true
        plan.discovery = lan
        let laptopSync = try await laptop.startSync(plan, logger: quiet)
        let laptopAddress = try #require(await status(of: laptopSync) { $0.listening != nil }?.listening)

        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        try await phone.acceptInvitation(token: token)
        let phoneSync = try await phone.startSync(plan, logger: quiet)
        let phoneAddress = try #require(await status(of: phoneSync) { $0.listening != nil }?.listening)
        #expect(try await eventually { try await phone.group() == group }, "the phone was never admitted")
        let seenByPhone = await status(of: phoneSync) { $0.discovered.map(\.port) == [laptopAddress.port] }
        let seenByLaptop = await status(of: laptopSync) { $0.discovered.map(\.port) == [phoneAddress.port] }
        #expect(seenByPhone != nil && seenByLaptop != nil)
        #expect(await status(of: laptopSync) { $0.peers.map(\.peer) == [phone.device] } != nil, "the two never connected")
        await phoneSync.stop()
        await laptopSync.stop()
        try await phone.close()
        try await laptop.close()
    }
}
