import HyzerKit
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// `serve`: accepts peers, dials the listed ones, optionally syncs a shared folder on a
/// schedule, and pushes every change of the store to every connected peer within
/// milliseconds. Runs until its task is cancelled.
public struct PeerServer: Sendable {
    /// The replica served.
    public let replica: Replica
    /// The group peers authenticate with.
    public let group: GroupMembership
    /// Where connections, refusals and folder syncs log.
    public let logger: Logger
    /// Peers to dial over TCP and keep connected.
    public var peers: [PeerAddress] = []
    /// Peers to dial over other links (an app's own transport) and keep connected.
    public var links: [any ByteLinkOpener] = []
    /// Links a peer opened to this device over an app's own transport (a peer dialed in): each
    /// is served as an accepted connection until it ends, at most `connectionsMax` at once
    /// (one more is told `ListenerBusy.full` and closed). The stream ends with the server.
    public var accepted: AsyncStream<any ByteLink>?
    /// A shared folder to sync every `folderInterval`; `nil` for none.
    public var folder: (any SharedFolder)?
    /// Time between two folder syncs.
    public var folderInterval: Duration = .seconds(10)
    /// Up to this much more, at random, between two folder syncs: devices of a group that
    /// started together do not sync a bucket in step (docs/bucket-sync.md).
    public var folderJitter: Duration = .zero
    /// Connections accepted at once; more are told `ListenerBusy.full` and closed at once.
    public var connectionsMax = 2048
    /// Connections from one source address that have not completed the handshake yet. A new one
    /// beyond takes the place of the oldest that has sent no whole first message (`ConnectionLimits`).
    public var unauthenticatedPerSourceMax = 8
    /// Timeouts, heartbeats and the per-connection bundle bound of every connection; an accepted
    /// connection's first message is due within 2 s (docs/sync-protocol.md, "Bounds and failure").
    public var configuration: SyncEngine.Configuration = {
        var configuration = SyncEngine.Configuration()
        configuration.firstMessageTimeoutMilliseconds = 2_000
        return configuration
    }()
    /// A connection accepted while more than this many are open is a crowd's: its hello asks
    /// the dialer for heartbeats after `crowdHeartbeatMilliseconds` of silence, both ways
    /// (docs/sync-protocol.md, "Heartbeats and dead peers").
    public var crowdFrom = 64
    /// The silence after which a crowd's connections heartbeat: a third of the heartbeats of the
    /// shipped 5 s, for a peer held dead after 45 s of silence rather than 15 s.
    public var crowdHeartbeatMilliseconds: UInt64 = 15_000
    /// Memory for partial bundles shared by all connections, accepted and dialed.
    public var budget = BundleBudget()
    /// Told how every connection, accepted or dialed, ended (tests and metrics listen here).
    public var observer: @Sendable (ConnectionOutcome) -> Void = { _ in }
    /// Told what every live connection does while it runs (`ConnectionProgress`).
    public var progress: @Sendable (ConnectionProgress) -> Void = { _ in }
    /// Told how every folder sync ended.
    public var folderObserver: @Sendable (Result<FolderSyncReport, any Error>) -> Void = { _ in }
    /// Finding peers on the LAN (docs/discovery.md); `nil` for none, whatever the two below say.
    public var discovery: (any ServiceDiscovery)?
    /// Whether the listener is advertised (`_hyzer._tcp`, with the group tag) while it runs.
    public var advertises = false
    /// Whether the members discovered on the LAN are dialed and kept connected, beside `peers`.
    public var discovers = false
    /// Services tagged for the group kept from a browse at once (copies of records included).
    public var discoveredServicesMax = 1_024
    /// Discovered members dialed at once: more found are left until some leave.
    public var discoveredPeersMax = 64
    /// Dials to discovered peers whose handshake is under way at once (`DialGate`).
    public var discoveredDialsMax = 4
    /// Told the addresses of the services found tagged for the group (whoever dials whom), after
    /// each change of what the browse found.
    public var discoveryObserver: @Sendable ([PeerAddress]) -> Void = { _ in }

    /// A server of `replica` in `group` with no peer to dial and no folder; set them before running it.
    public init(replica: Replica, group: GroupMembership, logger: Logger) {
        self.replica = replica
        self.group = group
        self.logger = logger
    }

    /// Listens on `address` and serves until cancelled. `onListening` receives the bound port
    /// (useful with port 0).
    public func run(listeningOn address: PeerAddress, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        try await run(listening: address, onListening: onListening)
    }

    /// Dials `peers` and `links` and syncs `folder` until cancelled, accepting no connection.
    public func run() async throws {
        try await run(listening: nil, onListening: { _ in })
    }

    private func run(listening address: PeerAddress?, onListening: @escaping @Sendable (Int) -> Void) async throws {
        let signals = ConnectionSignals(progress: progress)
        let monitor = try replica.changeMonitor()
        var listener: NIOAsyncChannel<(NIOAsyncChannel<ByteBuffer, ByteBuffer>, FirstFrameArrival), Never>?
        if let address {
            ProcessMemory.prepareForServe()
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 256)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let firstFrame = FirstFrameArrival()
                        return (try channel.framedAsyncChannel(firstFrame: firstFrame), firstFrame)
                    }
                }
            let port = server.channel.localAddress?.port ?? address.port
            logger.info("listening", metadata: ["address": "\(address.host):\(port)"])
            onListening(port)
            listener = server
        }
        let limits = ConnectionLimits(total: connectionsMax, unauthenticatedPerSource: unauthenticatedPerSourceMax)
        let seenHellos = SeenHellos()
        let (refusals, evictions) = (RepeatedNotice(), RepeatedNotice())
        let groups = GroupSource(replica: replica, group: group, signals: signals)
        let openers: [any ByteLinkOpener] = peers.map { TCPLink.Opener(address: $0) } + links
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { await signals.watch(monitor) }
            tasks.addTask { await signals.tick() }
            for opener in openers {
                tasks.addTask {
                    await PeerDialer.keepConnected(
                        opener, replica: replica, group: group, logger: logger, signals: signals, budget: budget,
                        configuration: configuration, observer: observer)
                }
            }
            if let folder {
                tasks.addTask { await syncFolder(folder) }
            }
            if let accepted {
                tasks.addTask { await serve(accepted, groups: groups, signals: signals, seenHellos: seenHellos) }
            }
            if let discovery, advertises || discovers {
                let advertised = advertises ? listener?.channel.localAddress?.port : nil
                tasks.addTask {
                    await runDiscovery(discovery, advertisedPort: advertised, groups: groups, signals: signals)
                }
            }
            guard let server = listener else { return }
            try await server.executeThenClose { inbound in
                for try await (connection, firstFrame) in inbound {
                    let source = connection.channel.remoteAddress?.ipAddress ?? "unknown"
                    let id: ConnectionLimits.ID
                    switch await limits.enter(from: source, channel: connection.channel, firstFrame: firstFrame) {
                    case .admitted(let admitted, let madeRoom):
                        id = admitted
                        if madeRoom {
                            logger.log(
                                level: evictions.isDue("evicted") ? .warning : .debug,
                                "closing the oldest pending connection from an address to make room for a new one",
                                metadata: ["source": "\(source)"])
                        }
                    case .refused(let busy):
                        // Under a crowd this repeats many times a second: logged once a minute.
                        logger.log(
                            level: refusals.isDue("\(busy)") ? .warning : .debug, "refusing a new connection",
                            metadata: ["source": "\(source)", "reason": "\(busy)"])
                        // A fresh socket takes the few bytes at once: the accept loop does not wait on the dialer.
                        try? await connection.executeThenClose { _, outbound in try await outbound.write(ByteBuffer(bytes: busy.frame)) }
                        continue
                    }
                    var peer = PeerConnection(
                        replica: replica, group: groups.current(), role: .listener, mode: .live, logger: logger, signals: signals,
                        budget: budget)
                    peer.configuration = configuration
                    if await limits.openConnections > crowdFrom {
                        peer.configuration.heartbeatMilliseconds = max(configuration.heartbeatMilliseconds, crowdHeartbeatMilliseconds)
                    }
                    peer.seenHellos = seenHellos
                    peer.onFirstMessageVerified = { await limits.verified(id) }
                    peer.onAuthenticated = { await limits.authenticated(id, from: source) }
                    peer.wasEvicted = { await limits.wasEvicted(id) }
                    tasks.addTask { [peer] in
                        let outcome = await peer.run(connection)
                        await limits.leave(id, from: source)
                        await ProcessMemory.connectionEnded(bytesReceived: outcome.bytesReceived, replica: replica)
                        observer(outcome)
                    }
                }
            }
        }
    }

    /// Serves each link of `links` as an accepted connection, until the server stops.
    private func serve(_ links: AsyncStream<any ByteLink>, groups: GroupSource, signals: ConnectionSignals, seenHellos: SeenHellos) async {
        let open = LinkCount()
        await withDiscardingTaskGroup { serving in
            for await link in links {
                guard open.value.add(1, ordering: .relaxed).newValue <= connectionsMax else {
                    open.value.subtract(1, ordering: .relaxed)
                    try? await link.send(ListenerBusy.full.frame)
                    await link.close()
                    continue
                }
                var peer = PeerConnection(
                    replica: replica, group: groups.current(), role: .listener, mode: .live, logger: logger, signals: signals,
                    budget: budget)
                peer.configuration = configuration
                peer.seenHellos = seenHellos
                serving.addTask { [peer, observer] in
                    let outcome = await peer.run(over: link)
                    open.value.subtract(1, ordering: .relaxed)
                    observer(outcome)
                }
            }
        }
    }

    /// Syncs the folder every `folderInterval`. A sync that moved nothing logs at debug; a
    /// failure logs at error when it begins or changes and at debug while it repeats (a store
    /// held by another process fails every sync until it is released), and the recovery once.
    private func syncFolder(_ folder: any SharedFolder) async {
        var failure: String?
        while !Task.isCancelled {
            do {
                let replica = replica
                let report = try await NIOThreadPool.singleton.runIfActive { try FolderSync(replica: replica, folder: folder).run() }
                folderObserver(.success(report))
                if failure != nil {
                    logger.notice("folder sync works again")
                    failure = nil
                }
                let moved = report.bundlesRead > 0 || report.bundlesWritten > 0 || report.opsIngested > 0
                logger.log(
                    level: moved ? .info : .debug, "folder synced",
                    metadata: ["read": "\(report.bundlesRead)", "written": "\(report.bundlesWritten)", "ops": "\(report.opsIngested)"])
                for rejection in report.rejected {
                    logger.warning("folder file refused", metadata: ["file": "\(rejection.file)", "reason": "\(rejection.reason)"])
                }
            } catch {
                guard !Task.isCancelled else { return }  // shutting down: not a failure
                folderObserver(.failure(error))
                // A busy store is one failure whoever holds it: `/proc/locks` may name the holder
                // at one look and not at the next, and that is no news worth an error line.
                let reason = if case ReplicaError.storeBusy = error { "storeBusy" } else { "\(error)" }
                logger.log(level: reason == failure ? .debug : .error, "folder sync failed", metadata: ["reason": "\(error)"])
                failure = reason
            }
            let jitter = folderJitter.components
            let jitterMilliseconds = max(0, jitter.seconds * 1_000 + jitter.attoseconds / 1_000_000_000_000_000)
            try? await Task.sleep(for: folderInterval + .milliseconds(Int64.random(in: 0...jitterMilliseconds)))
        }
    }
}

/// How many accepted links a server serves now.
private final class LinkCount: Sendable {
    let value = Atomic(0)
}
