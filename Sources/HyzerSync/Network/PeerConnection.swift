import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Logging
import NIOCore
import NIOPosix

/// One TCP connection to a peer: the handshake, then the sync session, driven by the events
/// of the connection (frames, the store changing, deadlines). The network shell is thin: every
/// decision is the `Handshake`'s or the `SyncSession`'s.
public struct PeerConnection: Sendable {
    public let replica: Replica
    public let group: GroupMembership
    public let role: Handshake.Role
    public let mode: SyncSession.Mode
    public let logger: Logger
    /// Store changes to push to the peer (live mode).
    public let changes: ChangeBroadcast?
    /// Time for the peer to complete the handshake.
    public var handshakeTimeout: Duration = .seconds(10)
    /// Time for the peer to accept one frame before it counts as stalled.
    public var writeTimeout: Duration = .seconds(15)

    public init(replica: Replica, group: GroupMembership, role: Handshake.Role, mode: SyncSession.Mode, logger: Logger, changes: ChangeBroadcast? = nil) {
        self.replica = replica
        self.group = group
        self.role = role
        self.mode = mode
        self.logger = logger
        self.changes = changes
    }

    enum Event: Sendable {
        case frame(ByteBuffer)
        case peerClosed
        case readFailed(String)
        case handshakeDeadline
        case storeChanged
    }

    /// Runs the connection to its end; never throws: the outcome says how it ended.
    public func run(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async -> ConnectionOutcome {
        let started = ContinuousClock.now
        var driver = Driver(connection: self)
        do {
            try await channel.executeThenClose { inbound, outbound in
                let (events, continuation) = AsyncStream<Event>.makeStream()
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        do {
                            for try await frame in inbound { continuation.yield(.frame(frame)) }
                            continuation.yield(.peerClosed)
                        } catch {
                            continuation.yield(.readFailed("\(error)"))
                        }
                    }
                    tasks.addTask {
                        try await Task.sleep(for: handshakeTimeout)
                        continuation.yield(.handshakeDeadline)
                    }
                    if let changes {
                        tasks.addTask {
                            for await _ in await changes.subscribe() { continuation.yield(.storeChanged) }
                        }
                    }
                    let writer = FrameWriter(outbound: outbound, timeout: writeTimeout)
                    try await driver.start(writer)
                    for await event in events {
                        guard try await driver.handle(event, writer) else { break }
                    }
                    tasks.cancelAll()
                }
            }
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed || error == .eof {
            driver.outcome.failure = driver.outcome.failure ?? "the peer closed the connection before the exchange completed"
        } catch let error as IOError {
            driver.outcome.failure = driver.outcome.failure ?? "the peer closed the connection before the exchange completed (\(error))"
        } catch {
            driver.outcome.failure = driver.outcome.failure ?? "\(error)"
        }
        driver.outcome.milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
        if let failure = driver.outcome.failure {
            logger.notice("connection closed", metadata: ["peer": "\(driver.outcome.peer ?? "unknown")", "reason": "\(failure)"])
        } else {
            logger.info("connection finished", metadata: ["peer": "\(driver.outcome.peer ?? "unknown")"])
        }
        return driver.outcome
    }

    /// Writes frames, giving up on a peer that does not read.
    struct FrameWriter: Sendable {
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        let timeout: Duration

        func write(_ bytes: [UInt8]) async throws {
            let outbound = outbound
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await outbound.write(ByteBuffer(bytes: bytes)) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw ConnectionError.stalled
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    enum ConnectionError: Error, CustomStringConvertible {
        case stalled

        var description: String { "the peer stopped reading" }
    }
}
