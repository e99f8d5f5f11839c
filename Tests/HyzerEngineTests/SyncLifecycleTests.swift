import Foundation
import HyzerTestSupport
import Logging
import Synchronization
import Testing

@testable import HyzerEngine
@testable import HyzerKit
@testable import HyzerSync

/// An app's side of a running sync (docs/embedding.md, "The app's lifecycle"): links it accepts
/// as well as dials, pause and resume around the background, one-shot syncs with a deadline, and
/// stopped syncs let go of.
@Suite struct SyncLifecycleTests {
    let directory = TemporaryDirectory("engine-lifecycle")
    let quiet: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    /// An app's transport in memory: each dial makes a pair of linked ends and hands the far one
    /// to the other device's sync, as a MultipeerConnectivity session would on its side.
    struct AcceptingOpener: ByteLinkOpener {
        let far: SyncController

        func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
            let (near, other) = InMemoryLink.pair()
            guard far.accept(other) else { throw InMemoryLinkError.closed }
            let result = await body(near)
            await near.close()
            return result
        }
    }

    /// A link nobody answers: its far end is never served.
    struct SilentOpener: ByteLinkOpener {
        func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
            let (near, far) = InMemoryLink.pair()
            let result = await body(near)
            await near.close()
            await far.close()
            return result
        }
    }

    func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// A laptop that organizes a group with a round of Ann's, and a phone of Ben's in it.
    func group() async throws -> (laptop: HyzerEngine, phone: HyzerEngine, round: RoundID, ann: PlayerID) {
        let laptop = try await HyzerEngine.create(at: directory.path("laptop"), deviceName: "laptop", kind: .laptop, owner: "Ann")
        try await laptop.createGroup()
        let token = try await laptop.invite()
        let phone = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ben")
        try await phone.acceptInvitation(token: token)
        let folder = directory.path("shared")
        _ = try await phone.syncFolder(folder)
        _ = try await laptop.syncFolder(folder)
        _ = try await phone.syncFolder(folder)
        let ann = try #require(try await laptop.owner())
        let round = try await laptop.startRound(on: try await laptop.course(matching: "Morley Field"), players: [ann])
        return (laptop, phone, round, ann)
    }

    func strokes(_ engine: HyzerEngine, _ round: RoundID) async -> Int? {
        try? await engine.read(.standings(of: round)).standings.first?.totalStrokes
    }

    /// The laptop's sync accepts the links the phone's transport opens: live both ways, and a
    /// one-shot sync over the same transport; then the other way round, the phone accepting.
    @Test func anAcceptedLinkSyncsARoundBothWays() async throws {
        let (laptop, phone, round, ann) = try await group()
        let accepting = try await laptop.startSync(SyncPlan(), logger: quiet)
        let dialing = try await phone.startSync(SyncPlan(links: [AcceptingOpener(far: accepting)]), logger: quiet)
        #expect(await eventually { await strokes(phone, round) == 0 }, "the round never crossed the accepted link")
        #expect(await eventually { accepting.status.peers.map(\.peer) == [phone.device] }, "the laptop lists the phone")
        try await phone.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 3)
        #expect(await eventually { await strokes(laptop, round) == 3 }, "the phone's score never reached the laptop live")
        await dialing.stop()

        try await laptop.recordScore(round: round, participant: .player(ann), hole: 2, strokes: 4)
        let report = try await phone.syncPeer(AcceptingOpener(far: accepting), logger: quiet)
        #expect(report.outcome.opsReceived > 0)
        #expect(await strokes(phone, round) == 7, "a one-shot sync over an accepted link")
        await accepting.stop()

        let phoneAccepting = try await phone.startSync(SyncPlan(), logger: quiet)
        let laptopDialing = try await laptop.startSync(SyncPlan(links: [AcceptingOpener(far: phoneAccepting)]), logger: quiet)
        try await laptop.recordScore(round: round, participant: .player(ann), hole: 3, strokes: 2)
        #expect(await eventually { await strokes(phone, round) == 9 }, "the laptop's score never reached the accepting phone")
        await laptopDialing.stop()
        await phoneAccepting.stop()
        #expect(!phoneAccepting.accept(InMemoryLink.pair().0), "a stopped sync accepts no link")
        try await phone.close()
        try await laptop.close()
    }

    /// Paused, the phone holds no connection and its scores wait; resumed, it redials and they go.
    @Test func aPausedSyncHoldsNoConnectionAndResumesWithNothingLost() async throws {
        let (laptop, phone, round, ann) = try await group()
        let listening = try await laptop.startSync(SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0)), logger: quiet)
        #expect(await eventually { listening.status.listening != nil })
        let address = try #require(listening.status.listening)
        let sync = try await phone.startSync(SyncPlan(peers: [address]), logger: quiet)
        #expect(await eventually { sync.status.peers.count == 1 }, "the phone never connected")
        #expect(await eventually { await strokes(phone, round) == 0 }, "the round never reached the phone")

        await sync.pause()
        #expect(sync.status.paused)
        #expect(sync.status.peers.isEmpty, "pausing closes every connection")
        #expect(!sync.accept(InMemoryLink.pair().0), "a paused sync accepts no link")
        #expect(await eventually { listening.status.peers.isEmpty }, "the laptop saw the phone go")
        try await phone.recordScore(round: round, participant: .player(ann), hole: 1, strokes: 5)
        try await Task.sleep(for: .milliseconds(500))
        #expect(await strokes(laptop, round) == 0, "nothing crosses while paused")

        sync.resume()
        #expect(!sync.status.paused)
        #expect(await eventually { await strokes(laptop, round) == 5 }, "the score recorded while paused never arrived")
        #expect(await eventually { sync.status.peers.count == 1 }, "the phone never redialed")
        await sync.stop()
        #expect(sync.status.stopped && !sync.status.paused)
        try await phone.close()
        try await laptop.close()
    }

    /// A one-shot sync with a deadline ends by then when the peer never answers, saying what
    /// crossed; with time enough it completes as any sync does.
    @Test func aOneShotSyncEndsByItsDeadline() async throws {
        let (laptop, phone, round, _) = try await group()
        let started = ContinuousClock.now
        await #expect(throws: EngineError.deadlinePassed(opsReceived: 0, opsSent: 0)) {
            try await phone.syncPeer(SilentOpener(), within: .milliseconds(300), logger: quiet)
        }
        #expect(ContinuousClock.now - started < .seconds(5), "the deadline cut the sync")

        let accepting = try await laptop.startSync(SyncPlan(), logger: quiet)
        let report = try await phone.syncPeer(AcceptingOpener(far: accepting), within: .seconds(30), logger: quiet)
        #expect(report.outcome.failure == nil)
        #expect(await strokes(phone, round) == 0, "the round arrived within the deadline")
        await accepting.stop()
        try await phone.close()
        try await laptop.close()
    }

    /// Counts the connections a sync saw end.
    final class Ended: Sendable {
        let count = Mutex(0)
    }

    /// A phone of another group dials the laptop only once a minute once the laptop closed its
    /// handshakes with every key it holds, twice round and for half a minute, and says why,
    /// instead of backing off and trying again every 2 s.
    @Test func aPeerOfAnotherGroupIsDialedOnlyOnceAMinute() async throws {
        let (laptop, phone, _, _) = try await group()
        let ended = Ended()
        var plan = SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0))
        plan.connectionEnded = { _ in ended.count.withLock { $0 += 1 } }
        let listening = try await laptop.startSync(plan, logger: quiet)
        #expect(await eventually { listening.status.listening != nil })
        let address = try #require(listening.status.listening)

        let stranger = try await HyzerEngine.create(at: directory.path("stranger"), deviceName: "stranger", owner: "Cat")
        try await stranger.createGroup()
        let lost = try await stranger.startSync(SyncPlan(peers: [address]), logger: quiet)
        let refused = [RefusedPeer(peer: address.description, refusal: .otherGroup)]
        #expect(
            await eventually(seconds: 90) { lost.status.refused == refused }, "the phone of another group kept redialing: \(lost.status)")
        // Time for the laptop to count the last refused connection, then longer than the longest
        // backoff between two dials (2 s and a fifth of it).
        try await Task.sleep(for: .milliseconds(500))
        let seen = ended.count.withLock { $0 }
        #expect(seen >= 15, "the laptop refused each of the stranger's dials over half a minute")
        try await Task.sleep(for: .seconds(3))
        #expect(ended.count.withLock { $0 } == seen, "the stranger dialed again")
        await lost.stop()
        await listening.stop()
        try await stranger.close()
        try await phone.close()
        try await laptop.close()
    }

    /// A TCP listener that accepts and at once closes every connection, as a proxy does while
    /// the peer behind it is down, until stopped.
    final class ClosingListener: Sendable {
        let port: Int
        private let descriptor: Int32
        private let stopped = Mutex(false)
        private let done = DispatchSemaphore(value: 0)

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread.detachNewThread { [self] in
                while !stopped.withLock({ $0 }) {
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, 20) > 0 else { continue }
                    let accepted = accept(descriptor, nil, nil)
                    if accepted >= 0 { close(accepted) }
                }
                close(descriptor)
                done.signal()
            }
        }

        func stop() {
            stopped.withLock { $0 = true }
            done.wait()
        }
    }

    /// A peer that closes the phone's handshakes while it starts again (behind a proxy that
    /// accepts for it) is a peer down for a moment, not one of another group: the phone keeps
    /// dialing it with backoff and syncs as soon as it is back.
    @Test func aPeerThatClosesHandshakesWhileItRestartsIsReachedAgainAtOnce() async throws {
        let (laptop, phone, _, _) = try await group()
        let restarting = try ClosingListener()
        let address = PeerAddress(host: "127.0.0.1", port: restarting.port)
        let sync = try await phone.startSync(SyncPlan(peers: [address]), logger: quiet)
        #expect(await eventually { sync.status.lastFailure != nil }, "the phone never dialed: \(sync.status)")
        // Long enough for the redialer to dial four times and more (100, 200, 400, 800 ms apart).
        try await Task.sleep(for: .seconds(2))
        restarting.stop()
        let listening = try await laptop.startSync(SyncPlan(listen: address), logger: quiet)
        #expect(await eventually { sync.status.peers.count == 1 }, "the phone did not reach the restarted laptop: \(sync.status)")
        #expect(sync.status.refused.isEmpty)
        await sync.stop()
        await listening.stop()
        try await phone.close()
        try await laptop.close()
    }

    /// The phone, connected live to the laptop, is removed from the group: the laptop closes its
    /// connection, and when the phone dials again it is shown the organizer's signed removal and
    /// dials no more, saying so.
    @Test func aRemovedPhoneStopsRedialing() async throws {
        let (laptop, phone, _, _) = try await group()
        let ended = Ended()
        var plan = SyncPlan(listen: PeerAddress(host: "127.0.0.1", port: 0))
        plan.connectionEnded = { _ in ended.count.withLock { $0 += 1 } }
        let listening = try await laptop.startSync(plan, logger: quiet)
        #expect(await eventually { listening.status.listening != nil })
        let address = try #require(listening.status.listening)
        let sync = try await phone.startSync(SyncPlan(peers: [address]), logger: quiet)
        #expect(await eventually { sync.status.peers.count == 1 }, "the phone never connected")

        _ = try await laptop.removeMember(phone.device)
        let refused = [RefusedPeer(peer: address.description, refusal: .removedFromGroup)]
        #expect(await eventually { sync.status.refused == refused }, "the removed phone kept redialing: \(sync.status)")
        #expect(sync.status.lastFailure == .connection(peer: nil, .removedFromGroup))
        // Time for the laptop to count the refused connection, then longer than the longest
        // backoff between two dials (2 s and a fifth of it).
        try await Task.sleep(for: .milliseconds(500))
        let seen = ended.count.withLock { $0 }
        try await Task.sleep(for: .seconds(3))
        #expect(ended.count.withLock { $0 } == seen, "the removed phone dialed again")
        await sync.stop()
        await listening.stop()
        try await phone.close()
        try await laptop.close()
    }

    /// Counts dials and serves each with a member that claims this device was removed and shows
    /// a removal that does not prove it (the organizer's signed removal of another device).
    struct ClaimingRemovalOpener: ByteLinkOpener {
        let replica: Replica
        let group: GroupMembership
        let dials = Ended()

        func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
            dials.count.withLock { $0 += 1 }
            let (near, far) = InMemoryLink.pair()
            let member = PeerConnection(
                replica: replica, group: group, role: .listener, mode: .live, logger: Logger(label: "claiming"),
                signals: ConnectionSignals(), budget: BundleBudget())
            let serving = Task { _ = await member.run(over: far) }
            let result = await body(near)
            await near.close()
            await serving.value
            return result
        }
    }

    /// A member that refuses the phone with a removal the organizer did not sign for it proves
    /// nothing: the phone goes on dialing with backoff.
    @Test func aRemovalThatDoesNotProveItselfDoesNotStopRedialing() async throws {
        let (laptop, phone, _, _) = try await group()
        let replica = await laptop.replica
        let group = try #require(try replica.group())
        let other = try #require(AuthorID(bytes: [UInt8](repeating: 7, count: 32)))
        let unsigned = SignedOp(
            author: replica.author, sequence: 1, previousHash: SignedOp.noPreviousHash,
            tail: SignedOp.tail(
                clock: HLCTimestamp(physicalMilliseconds: 1, counter: 0),
                payloadBytes: OpPayload.memberRemoved(device: other, through: 1).encoded()),
            signature: nil)
        let ofAnother = try #require(
            RemovalProof(
                AuthorSegment(ops: [unsigned.with(signature: replica.signature(of: SignedOp.signedMessage(hash: unsigned.hash)))]),
                group: group.id))
        let claimed = GroupMembership(
            id: group.id, secrets: group.secrets, recipients: group.recipients, removed: [phone.device], lineage: [],
            removalProofs: [phone.device: ofAnother])
        let opener = ClaimingRemovalOpener(replica: replica, group: claimed)
        let sync = try await phone.startSync(SyncPlan(links: [opener]), logger: quiet)
        #expect(await eventually { sync.status.lastFailure == .connection(peer: nil, .handshakeRefused(.unprovenRemoval)) })
        let first = opener.dials.count.withLock { $0 }
        try await Task.sleep(for: .seconds(3))
        let dials = opener.dials.count.withLock { $0 } - first
        #expect(dials >= 2, "the phone stopped dialing after \(first) dials")
        #expect(sync.status.refused.isEmpty)
        await sync.stop()
        try await phone.close()
        try await laptop.close()
    }

    @Test func aStoppedSyncIsLetGo() async throws {
        let (laptop, phone, _, _) = try await group()
        let first = try await laptop.startSync(SyncPlan(), logger: quiet)
        let second = try await laptop.startSync(SyncPlan(), logger: quiet)
        #expect(await laptop.syncCount == 2)
        await first.stop()
        #expect(await eventually { await laptop.syncCount == 1 }, "the engine kept a stopped sync")
        await second.stop()
        #expect(await eventually { await laptop.syncCount == 0 })
        try await phone.close()
        try await laptop.close()
    }
}
