import HyzerKit
import Logging
import NIOCore
import NIOPosix

/// Dialing peers: once (`sync --peer`), or for as long as `serve` runs, reconnecting with backoff.
public enum PeerDialer {
    /// Connects, runs one exchange in `mode`, and returns what crossed the connection. Throws
    /// `DialFailure` when the connection cannot be made (or `CancellationError`).
    public static func connectAndRun(
        _ address: PeerAddress, replica: Replica, group: GroupMembership, mode: SyncSession.Mode, logger: Logger,
        signals: ConnectionSignals? = nil, budget: BundleBudget = BundleBudget(), configuration: SyncEngine.Configuration = .init(),
        dialEpoch: UInt32? = nil
    ) async throws -> ConnectionOutcome {
        let channel = try await connect(address)
        var connection = PeerConnection(
            replica: replica, group: group, role: .dialer, mode: mode, logger: logger, signals: signals ?? ConnectionSignals(),
            budget: budget)
        connection.configuration = configuration
        connection.dialEpoch = dialEpoch
        if signals != nil { return await connection.run(channel) }
        // On its own (`sync --peer`), the connection needs its own ticks.
        let ticks = connection.signals
        return await withTaskGroup(of: Void.self) { [connection] tasks in
            tasks.addTask { await ticks.tick() }
            defer { tasks.cancelAll() }
            return await connection.run(channel)
        }
    }

    /// A framed connection to `address`; `DialFailure` when it cannot be made (or `CancellationError`).
    static func connect(_ address: PeerAddress) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.framedAsyncChannel() }
                }
        } catch {
            try Task.checkCancellation()
            throw DialFailure(address: address, error: error)
        }
    }

    /// The longest wait between dials: a healed link is used within about this long.
    static let backoffMaxMilliseconds: UInt64 = 2_000

    /// Keeps a live connection to `address` until cancelled, dialing again after a failure or a
    /// closed connection (a peer declared dead by the engine's heartbeat check included) as
    /// `Redialer` says, with the system's randomness as jitter. A peer that stays unreachable
    /// is logged once a minute, not at every dial.
    static func keepConnected(
        _ address: PeerAddress, replica: Replica, group: GroupMembership, logger: Logger, signals: ConnectionSignals,
        budget: BundleBudget, configuration: SyncEngine.Configuration, observer: @Sendable (ConnectionOutcome) -> Void
    ) async {
        var redialer = Redialer(backoffMaxMilliseconds: Self.backoffMaxMilliseconds)
        let unreachable = RepeatedNotice()
        while !Task.isCancelled {
            do {
                // Each dial uses the newest group key the store holds, or an older one while
                // the peer closes on the newer ones (it has not received the rekey yet).
                let current = (try? replica.group()) ?? group
                let outcome = try await connectAndRun(
                    address, replica: replica, group: current, mode: .live, logger: logger, signals: signals, budget: budget,
                    configuration: configuration, dialEpoch: redialer.dialEpoch)
                observer(outcome)
                redialer.connectionEnded(authenticated: outcome.peer != nil, failure: outcome.failure, group: current)
            } catch let failure as DialFailure {
                logger.log(
                    level: unreachable.isDue(failure.reason) ? .info : .debug, "could not connect",
                    metadata: ["peer": "\(address)", "reason": "\(failure.reason)"])
            } catch {
                return  // cancelled: `serve` is stopping
            }
            let delay = redialer.nextDelay { UInt64.random(in: $0) }
            try? await Task.sleep(for: .milliseconds(delay))
        }
    }
}
