import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

extension LiveSyncTests {
    /// The transport seam (docs/architecture.md, "The transport seam"): the same handshake and
    /// session over the in-memory link as over TCP, and a link's frames held to their bounds.
    @Suite struct LinkSyncTests {
        /// Runs a dialer and a listener, both set up by `configure`, against each other over an in-memory pair.
        static func sync(
            _ dialer: Replica, _ listener: Replica, world: LiveWorld, mode: SyncSession.Mode = .oneShot,
            configure: (inout PeerConnection) -> Void = { _ in }, dialerLink: (@Sendable (InMemoryLink) -> any ByteLink)? = nil
        ) async -> (dialer: ConnectionOutcome, listener: ConnectionOutcome) {
            let (near, far) = InMemoryLink.pair()
            let signals = ConnectionSignals()
            let ticks = Task { await signals.tick(every: .milliseconds(50)) }
            defer { ticks.cancel() }
            var serving = PeerConnection(
                replica: listener, group: world.group, role: .listener, mode: mode, logger: world.logger, signals: signals,
                budget: BundleBudget())
            configure(&serving)
            var dialing = PeerConnection(
                replica: dialer, group: world.group, role: .dialer, mode: mode, logger: world.logger, signals: signals,
                budget: BundleBudget())
            configure(&dialing)
            async let listened = serving.run(over: far)
            let dialed = await dialing.run(over: dialerLink?(near) ?? near)
            return (dialed, await listened)
        }

        /// Two stores with content, and a copy of each: one pair syncs in memory, the other over TCP.
        @Test func aSyncInMemoryAndOverTCPGiveIdenticalStores() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let round = try a.startRound(course: "Morley Field", players: ["Ann"])
            for hole in 1...9 { try a.recordScore(round: round.id.lowercased, player: "Ann", hole: hole, strokes: 3) }
            try b.addPlayer(name: "Bea")
            try a.close()
            try b.close()
            for name in ["a", "b"] {
                try FileManager.default.copyItem(at: world.directory.path(name), to: world.directory.path("\(name)-tcp"))
            }
            let (memoryA, memoryB) = (try Replica.open(at: world.directory.path("a")), try Replica.open(at: world.directory.path("b")))
            let (tcpA, tcpB) = (try Replica.open(at: world.directory.path("a-tcp")), try Replica.open(at: world.directory.path("b-tcp")))

            let inMemory = await Self.sync(memoryB, memoryA, world: world)
            let server = try await world.serve(tcpA)
            defer { server.stop() }
            let overTCP = try await world.syncOnce(tcpB, with: server)

            #expect(inMemory.dialer.failure == nil)
            #expect(inMemory.listener.failure == nil)
            #expect(overTCP.failure == nil)
            #expect(inMemory.dialer.peer == memoryA.author.hex)
            #expect(inMemory.listener.peer == memoryB.author.hex)
            #expect(inMemory.dialer.opsReceived == overTCP.opsReceived)
            #expect(inMemory.dialer.opsSent == overTCP.opsSent)
            #expect(inMemory.dialer.opsReceived > 9)
            let digest = try memoryA.digest()
            for replica in [memoryB, tcpA, tcpB] { #expect(try replica.digest() == digest) }
        }

        @Test func aLiveLinkCarriesACommitAsItHappens() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let round = try a.startRound(course: "Morley Field", players: ["Ann"])
            let (near, far) = InMemoryLink.pair()
            let signals = ConnectionSignals()
            let monitor = try a.changeMonitor()
            let background = Task {
                await withTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { await signals.tick(every: .milliseconds(50)) }
                    tasks.addTask { await signals.watch(monitor) }
                }
            }
            defer { background.cancel() }
            let listening = PeerConnection(
                replica: a, group: world.group, role: .listener, mode: .live, logger: world.logger, signals: signals, budget: BundleBudget()
            )
            let dialing = PeerConnection(
                replica: b, group: world.group, role: .dialer, mode: .live, logger: world.logger, signals: ConnectionSignals(),
                budget: BundleBudget())
            let listened = Task { await listening.run(over: far) }
            let dialed = Task { await dialing.run(over: near) }
            #expect(await eventually { (try? b.roundView(round.id)) != nil }, "the round never crossed the link")
            try a.recordScore(round: round.id.lowercased, player: "Ann", hole: 1, strokes: 2)
            #expect(try await eventually { try b.digest() == a.digest() }, "the score never crossed the live link")
            // Closing one end ends both connections.
            await near.close()
            _ = await dialed.value
            let outcome = await listened.value
            #expect(outcome.peer == b.author.hex)
        }

        /// An app's own transport gets the dialer's redial policy: an opener that fails first, then
        /// opens in-memory links to a listener, keeps a live connection that carries a commit.
        @Test func keepConnectedRedialsOverAnAppsOwnLink() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let round = try b.startRound(course: "Morley Field", players: ["Ben"])
            let listening = PeerConnection(
                replica: a, group: world.group, role: .listener, mode: .live, logger: world.logger, signals: ConnectionSignals(),
                budget: BundleBudget())
            let opener = InMemoryOpener(listener: listening, failing: 1)
            let signals = ConnectionSignals()
            let monitor = try b.changeMonitor()
            let dialing = Task {
                await withTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { await signals.tick(every: .milliseconds(50)) }
                    tasks.addTask { await signals.watch(monitor) }
                    tasks.addTask {
                        await PeerDialer.keepConnected(
                            opener, replica: b, group: world.group, logger: world.logger, signals: signals, budget: BundleBudget(),
                            configuration: .init(), observer: { _ in })
                    }
                }
            }
            defer { dialing.cancel() }
            #expect(await eventually { (try? a.roundView(round.id)) != nil }, "the round never crossed the link")
            try b.recordScore(round: round.id.lowercased, player: "Ben", hole: 1, strokes: 2)
            #expect(try await eventually { try a.digest() == b.digest() }, "the score never crossed the live link")
            #expect(opener.attempts >= 2, "the first open failed, so it was dialed again")
        }

        /// `PeerSync`, as `sync --peer` runs it, over an app's own link: a device with an
        /// invitation is admitted, then syncs.
        @Test func aDeviceWithAnInvitationJoinsAndSyncsOverAnInMemoryLink() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let round = try a.startRound(course: "Morley Field", players: ["Ann"])
            let expires = UInt64(Date().timeIntervalSince1970 * 1_000) + 3_600_000
            let invitation = try a.issueInvitation(
                secret: [UInt8](repeating: 9, count: Invitation.secretBytes), expiresAt: expires, uses: 1)
            let newcomer = try Replica.create(at: world.directory.path("newcomer"), name: "newcomer", kind: .phone, owner: "Neo")
            try newcomer.accept(try Invitation(token: invitation.token))
            let listening = PeerConnection(
                replica: a, group: world.group, role: .listener, mode: .oneShot, logger: world.logger, signals: ConnectionSignals(),
                budget: BundleBudget())
            let opener = InMemoryOpener(listener: listening)
            let peer = PeerSync(replica: newcomer, logger: world.logger)
            #expect(try await peer.join(opener) == world.group.id)
            #expect(try await peer.join(opener) == nil, "a member has nothing to join")
            let outcome = try await peer.sync(opener)
            #expect(outcome.peer == a.author.hex)
            #expect(try newcomer.roundView(round.id) != nil)
            #expect(try newcomer.digest() == a.digest())
        }

        /// A link is untrusted: a frame above the handshake's bound closes the connection before
        /// it is handled, whatever the link (TCP's decoder refuses it sooner, before buffering).
        @Test func anOversizedFrameFromALinkIsRefused() async throws {
            let world = LiveWorld()
            let a = try world.replica("a")
            let (near, far) = InMemoryLink.pair()
            let signals = ConnectionSignals()
            let listening = PeerConnection(
                replica: a, group: world.group, role: .listener, mode: .oneShot, logger: world.logger, signals: signals,
                budget: BundleBudget())
            let listened = Task { await listening.run(over: far) }
            try await near.send([UInt8](repeating: 7, count: SyncEngine.handshakeFrameBytesMax + 1))
            let outcome = await listened.value
            #expect(
                outcome.failure == .frameTooLarge(bytes: SyncEngine.handshakeFrameBytesMax + 1, limit: SyncEngine.handshakeFrameBytesMax))
            #expect(try await near.receive() == nil, "the listener closed its end")
        }

        /// A peer that stops taking frames is given up on after the write timeout, over any link.
        @Test func aPeerThatStopsReadingIsCutAtTheWriteTimeout() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let round = try a.startRound(course: "Morley Field", players: ["Ann"])
            for hole in 1...18 { try a.recordScore(round: round.id.lowercased, player: "Ann", hole: hole, strokes: 3) }
            let b = try world.replica("b")
            // The dialer's link stops reading after the handshake's frames: the listener's frames back up.
            let outcomes = await Self.sync(
                b, a, world: world,
                configure: {
                    $0.configuration.writeTimeoutMilliseconds = 300
                    // Heartbeats every 100 ms: the listener's soon fill the link.
                    $0.configuration.heartbeatMilliseconds = 100
                },
                dialerLink: { StopsReading(link: $0, after: SyncEngine.handshakeFrames) })
            #expect(outcomes.listener.failure == .stalled)
        }
    }
}

/// A link that takes `after` frames, then never takes another (a peer that stops reading).
private struct StopsReading: ByteLink {
    let link: InMemoryLink
    let after: Int
    let taken = Counter()

    func send(_ frame: [UInt8]) async throws { try await link.send(frame) }

    func receive() async throws -> [UInt8]? {
        guard taken.next() < after else {
            try await Task.sleep(for: .seconds(3_600))
            return nil
        }
        return try await link.receive()
    }

    func close() async { await link.close() }

    final class Counter: @unchecked Sendable {
        // @unchecked: only the receiving task touches `count`.
        private var count = 0
        func next() -> Int {
            defer { count += 1 }
            return count
        }
    }
}

/// Opens in-memory links to `listener`, running it on the far end of each; the first
/// `failing` opens fail.
private final class InMemoryOpener: ByteLinkOpener, @unchecked Sendable {
    // @unchecked: `opened` is only touched under `lock`.
    let listener: PeerConnection
    let failing: Int
    private let lock = NSLock()
    private var opened = 0

    init(listener: PeerConnection, failing: Int = 0) {
        self.listener = listener
        self.failing = failing
    }

    var attempts: Int { lock.withLock { opened } }

    struct Unreachable: Error {}

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        let attempt = lock.withLock {
            opened += 1
            return opened
        }
        guard attempt > failing else { throw Unreachable() }
        let (near, far) = InMemoryLink.pair()
        let listener = listener
        let listening = Task { await listener.run(over: far) }
        let result = await body(near)
        await near.close()
        _ = await listening.value
        return result
    }
}
