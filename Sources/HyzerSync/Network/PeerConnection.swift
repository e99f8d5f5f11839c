import HyzerCrypto
import HyzerDomain
import HyzerKit
import Logging
import NIOCore
import NIOPosix

/// One TCP connection to a peer: a thin shell around a `SyncEngine`. It feeds the engine
/// frames, ticks and store changes, and performs what the engine returns: writes frames,
/// runs store work on NIO's thread pool (never on an event loop), closes. Every protocol
/// decision is the engine's.
public struct PeerConnection: Sendable {
    public let replica: Replica
    public let group: GroupMembership
    public let role: Handshake.Role
    public let mode: SyncSession.Mode
    public let logger: Logger
    /// Store changes to push to the peer (live mode).
    public let changes: ChangeBroadcast?
    /// Memory for partial bundles, shared with the other connections of the process.
    public let budget: BundleBudget
    public var configuration = SyncEngine.Configuration()
    /// Time for the peer to accept one frame before it counts as stalled.
    public var writeTimeout: Duration = .seconds(15)
    /// How often the engine is told the time.
    public var tickInterval: Duration = .milliseconds(250)
    /// Told once, when the handshake has proved the peer.
    var onAuthenticated: @Sendable () async -> Void = {}

    public init(
        replica: Replica, group: GroupMembership, role: Handshake.Role, mode: SyncSession.Mode, logger: Logger,
        changes: ChangeBroadcast? = nil, budget: BundleBudget
    ) {
        self.replica = replica
        self.group = group
        self.role = role
        self.mode = mode
        self.logger = logger
        self.changes = changes
        self.budget = budget
    }

    enum Event: Sendable {
        case frame([UInt8])
        /// The peer closed (nil), or reading or writing failed.
        case ended(SyncFailure?)
        case tick
        case storeChanged
    }

    /// Runs the connection to its end; never throws: the outcome says how it ended.
    func run(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async -> ConnectionOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        func now() -> UInt64 { UInt64((clock.now - started) / .milliseconds(1)) }
        var outcome = ConnectionOutcome()
        do {
            let vector = try await store { try $0.versionVector() }
            let replica = replica
            try await channel.executeThenClose { inbound, outbound in
                var engine = SyncEngine(
                    role: role, mode: mode, author: replica.author, sign: { replica.signature(of: $0) }, group: group,
                    ephemeral: KeyExchange(), localVector: vector, budget: budget, configuration: configuration, now: now())
                let (events, eventSink) = AsyncStream<(Event, AsyncStream<Void>.Continuation)>.makeStream()
                let (writes, writeSink) = AsyncStream<[UInt8]>.makeStream()
                await withTaskGroup(of: Void.self) { outer in
                    outer.addTask { await Self.write(writes, to: outbound, timeout: writeTimeout, failures: eventSink) }
                    await withTaskGroup(of: Void.self) { inner in
                        inner.addTask { await Self.read(inbound, into: eventSink) }
                        inner.addTask { [tickInterval] in
                            while !Task.isCancelled {
                                try? await Task.sleep(for: tickInterval)
                                await Self.send(.tick, eventSink)
                            }
                        }
                        if let changes {
                            inner.addTask {
                                for await _ in await changes.subscribe() { await Self.send(.storeChanged, eventSink) }
                            }
                        }
                        var shell = Shell(connection: self, writes: writeSink)
                        await shell.drive(&engine, events: events, now: now)
                        outcome = shell.outcome
                        inner.cancelAll()
                    }
                    writeSink.finish()  // the writer sends what is queued (a `bye`, the last `have`), then ends
                    await outer.waitForAll()
                }
            }
        } catch {
            outcome.failure = outcome.failure ?? .connectionLost
        }
        outcome.milliseconds = Int(now())
        if let failure = outcome.failure {
            logger.notice("connection closed", metadata: ["peer": "\(outcome.peer ?? "unknown")", "reason": "\(failure)"])
        } else {
            logger.info("connection finished", metadata: ["peer": "\(outcome.peer ?? "unknown")"])
        }
        return outcome
    }

    /// Sends `event` and waits until it is handled: each producer has at most one event in
    /// the queue, so the queue stays bounded and a fast peer meets NIO's backpressure.
    private static func send(_ event: Event, _ sink: AsyncStream<(Event, AsyncStream<Void>.Continuation)>.Continuation) async {
        let (handled, done) = AsyncStream<Void>.makeStream()
        sink.yield((event, done))
        for await _ in handled {}
    }

    private static func read(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, into sink: AsyncStream<(Event, AsyncStream<Void>.Continuation)>.Continuation
    ) async {
        do {
            for try await frame in inbound { await send(.frame(Array(frame.readableBytesView)), sink) }
            await send(.ended(nil), sink)
        } catch let error as FramingError {
            switch error {
            case .frameTooLarge(let bytes, let limit): await send(.ended(.frameTooLarge(bytes: bytes, limit: limit)), sink)
            }
        } catch {
            await send(.ended(.connectionLost), sink)
        }
    }

    /// Writes frames in order, giving up on a peer that does not accept one within `timeout`.
    private static func write(
        _ writes: AsyncStream<[UInt8]>, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, timeout: Duration,
        failures: AsyncStream<(Event, AsyncStream<Void>.Continuation)>.Continuation
    ) async {
        for await bytes in writes {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await outbound.write(ByteBuffer(bytes: bytes)) }
                    group.addTask {
                        try await Task.sleep(for: timeout)
                        throw SyncFailure.stalled
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch {
                // The main loop may be gone already: yield without waiting.
                failures.yield((.ended(error as? SyncFailure ?? .connectionLost), AsyncStream<Void>.makeStream().continuation))
                return
            }
        }
    }

    /// Runs store work off the event loops.
    func store<T: Sendable>(_ work: @escaping @Sendable (Replica) throws -> T) async throws -> T {
        let replica = replica
        return try await NIOThreadPool.singleton.runIfActive { try work(replica) }
    }
}
