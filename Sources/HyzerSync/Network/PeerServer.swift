import HyzerKit
import Logging
import NIOCore
import NIOPosix

/// `serve`: accepts peers, dials the listed ones, optionally syncs a shared folder on a
/// schedule, and pushes every change of the store to every connected peer within
/// milliseconds. Runs until its task is cancelled.
public struct PeerServer: Sendable {
    public let replica: Replica
    public let group: GroupMembership
    public let logger: Logger
    public var peers: [PeerAddress] = []
    public var folder: (any SharedFolder)?
    public var folderInterval: Duration = .seconds(10)
    /// Connections accepted at once; more are closed at once.
    public var connectionsMax = 512
    /// Time an accepted peer has to complete the handshake.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Time a peer has to accept one frame before it counts as stalled.
    public var writeTimeout: Duration = .seconds(15)
    /// Told how every connection, accepted or dialed, ended (tests and metrics listen here).
    public var observer: @Sendable (ConnectionOutcome) -> Void = { _ in }

    public init(replica: Replica, group: GroupMembership, logger: Logger) {
        self.replica = replica
        self.group = group
        self.logger = logger
    }

    /// Listens on `address` and serves until cancelled. `onListening` receives the bound port
    /// (useful with port 0).
    public func run(listeningOn address: PeerAddress, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let changes = ChangeBroadcast()
        let monitor = try replica.changeMonitor()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .bind(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture { try channel.framedAsyncChannel() }
            }
        let port = server.channel.localAddress?.port ?? address.port
        logger.info("listening", metadata: ["address": "\(address.host):\(port)"])
        onListening(port)
        let active = ConnectionCount()
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { await changes.watch(monitor) }
            for peer in peers {
                tasks.addTask {
                    await PeerDialer.keepConnected(peer, replica: replica, group: group, logger: logger, changes: changes, observer: observer)
                }
            }
            if let folder {
                tasks.addTask { await syncFolder(folder) }
            }
            try await server.executeThenClose { inbound in
                for try await connection in inbound {
                    guard await active.enter(limit: connectionsMax) else {
                        logger.warning("too many connections; closing a new one")
                        try? await connection.channel.close()
                        continue
                    }
                    var peer = PeerConnection(replica: replica, group: group, role: .listener, mode: .live, logger: logger, changes: changes)
                    peer.handshakeTimeout = handshakeTimeout
                    peer.writeTimeout = writeTimeout
                    tasks.addTask { [peer] in
                        observer(await peer.run(connection))
                        await active.leave()
                    }
                }
            }
        }
    }

    private func syncFolder(_ folder: any SharedFolder) async {
        while !Task.isCancelled {
            do {
                let replica = replica
                let report = try await NIOThreadPool.singleton.runIfActive { try FolderSync(replica: replica, folder: folder).run() }
                logger.info("folder synced", metadata: ["read": "\(report.bundlesRead)", "written": "\(report.bundlesWritten)", "ops": "\(report.opsIngested)"])
                for rejection in report.rejected { logger.warning("folder file refused", metadata: ["file": "\(rejection.file)", "reason": "\(rejection.reason)"]) }
            } catch {
                logger.error("folder sync failed", metadata: ["reason": "\(error)"])
            }
            try? await Task.sleep(for: folderInterval)
        }
    }
}

/// The number of open connections.
actor ConnectionCount {
    private var count = 0

    func enter(limit: Int) -> Bool {
        guard count < limit else { return false }
        count += 1
        return true
    }

    func leave() { count -= 1 }
}
