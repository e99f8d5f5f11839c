import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Logging
import NIOConcurrencyHelpers

/// Replicas of one group in a temporary directory, and servers for them on loopback.
final class LiveWorld: Sendable {
    let directory = TemporaryDirectory("live")
    let group = GroupMembership(id: UUID(uuidString: "5a5a5a5a-0000-8000-8000-000000000001")!, secret: Array(repeating: 3, count: 32))
    let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }()

    func replica(_ name: String, owner: String? = nil, kind: DeviceKind = .phone) throws -> Replica {
        let replica = try Replica.create(at: directory.path(name), name: name, kind: kind, owner: owner)
        try replica.join(group)
        return replica
    }

    /// A server for `replica` running in a task until the returned handle stops it.
    func serve(_ replica: Replica, peers: [PeerAddress] = [], configure: (inout PeerServer) -> Void = { _ in }) async throws
        -> RunningServer
    {
        var server = PeerServer(replica: replica, group: group, logger: logger)
        server.peers = peers
        let outcomes = NIOLockedValueBox<[ConnectionOutcome]>([])
        server.observer = { outcome in outcomes.withLockedValue { $0.append(outcome) } }
        configure(&server)
        let running = try await server.start()
        return RunningServer(address: running.address, task: running.task, outcomes: outcomes)
    }

    func syncOnce(_ replica: Replica, with server: RunningServer) async throws -> ConnectionOutcome {
        try await PeerDialer.connectAndRun(server.address, replica: replica, group: group, mode: .oneShot, logger: logger)
    }
}

/// `hyzer-peer serve` as its own process, serving a replica of a `LiveWorld`.
struct ServeProcess {
    let process: Process
    let address: PeerAddress
    /// What `serve` logged (at `notice`): why it closed a connection, for a failure's message.
    let log: OutputCollector

    /// Starts `serve` on the replica stored under `name` in `world`, dialing `peers`, and waits
    /// until it listens.
    init(_ world: LiveWorld, store name: String, peers: [PeerAddress] = [], environment: [String: String] = [:]) throws {
        let dials = peers.flatMap { ["--peer", "\($0.host):\($0.port)"] }
        process = try BinaryRunner(store: world.directory.path(name)).start(
            ["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"] + dials, environment: environment)
        let output = OutputCollector(process.standardOutput as! Pipe)
        log = OutputCollector(process.standardError as! Pipe)
        guard output.wait(until: { $0.contains("listening on") }),
            let port = Int(output.output.split(separator: ":").last?.split(separator: "\n").first ?? "")
        else {
            process.terminate()
            throw ServeProcessError.didNotStart(output.output)
        }
        address = PeerAddress(host: "127.0.0.1", port: port)
    }

    /// The process's resident memory in bytes (Linux).
    var residentBytes: Int? { HyzerLiveSyncTests.residentBytes(of: "\(process.processIdentifier)") }

    /// The memory the process allocated, without the pages of its binary (Linux).
    var allocatedBytes: Int? { HyzerLiveSyncTests.residentBytes(of: "\(process.processIdentifier)", field: "RssAnon") }

    /// A handle for `LiveWorld.syncOnce`.
    var running: RunningServer { RunningServer(address: address, task: Task {}, outcomes: .init([])) }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

enum ServeProcessError: Error { case didNotStart(String) }

/// A server started by `LiveWorld.serve`.
struct RunningServer: Sendable {
    let address: PeerAddress
    let task: Task<Void, any Error>
    let outcomes: NIOLockedValueBox<[ConnectionOutcome]>

    func stop() { task.cancel() }

    /// The outcomes of connections so far.
    var finished: [ConnectionOutcome] { outcomes.withLockedValue { $0 } }

    /// Waits (bounded) until `condition` holds for the outcomes.
    func waitFor(_ condition: @escaping ([ConnectionOutcome]) -> Bool, seconds: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition(finished) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(finished)
    }
}

/// Waits (bounded) until `condition` holds.
func eventually(seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
