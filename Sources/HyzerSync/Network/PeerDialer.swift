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
    static let backoffMaxMilliseconds = 2_000

    /// Keeps a live connection to `address` until cancelled: after a failure or a closed
    /// connection (a peer declared dead by the engine's heartbeat check included) it waits
    /// 100 ms, doubling up to 2 s, with jitter, and dials again. A peer that stays unreachable
    /// is logged once a minute, not at every dial.
    static func keepConnected(
        _ address: PeerAddress, replica: Replica, group: GroupMembership, logger: Logger, signals: ConnectionSignals,
        budget: BundleBudget, configuration: SyncEngine.Configuration, observer: @Sendable (ConnectionOutcome) -> Void
    ) async {
        var delayMilliseconds = 100
        let unreachable = RepeatedNotice()
        var dialEpoch: UInt32?
        while !Task.isCancelled {
            do {
                // Each dial uses the newest group key the store holds, or an older one while
                // the peer closes on the newer ones (it has not received the rekey yet).
                let current = (try? replica.group()) ?? group
                let outcome = try await connectAndRun(
                    address, replica: replica, group: current, mode: .live, logger: logger, signals: signals, budget: budget,
                    configuration: configuration, dialEpoch: dialEpoch)
                observer(outcome)
                if outcome.peer != nil { delayMilliseconds = 100 }
                dialEpoch = outcome.failure == .closedDuringHandshake ? current.epochBefore(dialEpoch ?? current.epoch) : nil
            } catch let failure as DialFailure {
                logger.log(
                    level: unreachable.isDue(failure.reason) ? .info : .debug, "could not connect",
                    metadata: ["peer": "\(address)", "reason": "\(failure.reason)"])
            } catch {
                return  // cancelled: `serve` is stopping
            }
            let jitter = Int.random(in: 0...(delayMilliseconds / 5))
            try? await Task.sleep(for: .milliseconds(delayMilliseconds + jitter))
            delayMilliseconds = min(delayMilliseconds * 2, Self.backoffMaxMilliseconds)
        }
    }
}
