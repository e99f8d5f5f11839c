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
        try await run(
            opening: TCPLink.Opener(address: address), replica: replica, group: group, mode: mode, logger: logger, signals: signals,
            budget: budget, configuration: configuration, dialEpoch: dialEpoch)
    }

    /// Opens a link with `opener`, runs one exchange in `mode` over it as the dialer, and returns
    /// what crossed it. Throws what `opener` throws when the link cannot be opened. Without
    /// `signals` the connection ticks its own clock; with them, their owner ticks.
    public static func run(
        opening opener: some ByteLinkOpener, replica: Replica, group: GroupMembership, mode: SyncSession.Mode, logger: Logger,
        signals: ConnectionSignals? = nil, budget: BundleBudget = BundleBudget(), configuration: SyncEngine.Configuration = .init(),
        dialEpoch: UInt32? = nil
    ) async throws -> ConnectionOutcome {
        try await run(
            opening: opener, replica: replica, group: group, mode: mode, logger: logger, signals: signals, budget: budget,
            configuration: configuration, dialEpoch: dialEpoch, onAuthenticated: {})
    }

    /// `run(opening:…)`, telling `onAuthenticated` once the handshake has proved the peer.
    static func run(
        opening opener: some ByteLinkOpener, replica: Replica, group: GroupMembership, mode: SyncSession.Mode, logger: Logger,
        signals: ConnectionSignals?, budget: BundleBudget, configuration: SyncEngine.Configuration, dialEpoch: UInt32?,
        onAuthenticated: @escaping @Sendable () async -> Void
    ) async throws -> ConnectionOutcome {
        var connection = PeerConnection(
            replica: replica, group: group, role: .dialer, mode: mode, logger: logger, signals: signals ?? ConnectionSignals(),
            budget: budget)
        connection.configuration = configuration
        connection.dialEpoch = dialEpoch
        connection.onAuthenticated = onAuthenticated
        let ownTicks = signals == nil
        return try await opener.withLink { [connection] link in
            guard ownTicks else { return await connection.run(over: link) }
            let ticks = connection.signals
            return await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await ticks.tick() }
                defer { tasks.cancelAll() }
                return await connection.run(over: link)
            }
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

    /// Keeps a live connection to the peer `opener` reaches until cancelled, dialing again after
    /// a failure or a closed connection (a peer declared dead by the engine's heartbeat check
    /// included) as `Redialer` says, with the system's randomness as jitter: over TCP
    /// (`TCPLink.Opener`) in `serve`, or over an app's own link. A peer that stays unreachable
    /// is logged once a minute, not at every dial. Once a member showed the organizer's removal of
    /// this device (`SyncFailure.removedFromGroup`), this dialer and every other one sharing
    /// `signals` stop: no peer of the group would admit it. `signals` must be ticked by their owner.
    public static func keepConnected(
        _ opener: some ByteLinkOpener, replica: Replica, group: GroupMembership, logger: Logger, signals: ConnectionSignals,
        budget: BundleBudget, configuration: SyncEngine.Configuration, observer: @Sendable (ConnectionOutcome) -> Void
    ) async {
        await keepConnected(
            opener, replica: replica, group: group, logger: logger, signals: signals, budget: budget, configuration: configuration,
            observer: observer, gate: nil, while: { true })
    }

    /// `keepConnected(_:…)`, dialing only while `wanted()` says so, and, with a `gate`, holding
    /// one of its places from each dial until the peer has proved itself or the connection ended.
    static func keepConnected(
        _ opener: some ByteLinkOpener, replica: Replica, group: GroupMembership, logger: Logger, signals: ConnectionSignals,
        budget: BundleBudget, configuration: SyncEngine.Configuration, observer: @Sendable (ConnectionOutcome) -> Void,
        gate: DialGate?, while wanted: () -> Bool
    ) async {
        var redialer = Redialer(backoffMaxMilliseconds: Self.backoffMaxMilliseconds)
        let unreachable = RepeatedNotice()
        while !Task.isCancelled, wanted(), !signals.removedFromGroup {
            if let gate, !(await gate.enter()) { return }
            let place = DialGate.Place(gate)
            do {
                // Each dial uses the newest group key the store holds, or an older one while
                // the peer closes on the newer ones (it has not received the rekey yet).
                let current = (try? replica.group()) ?? group
                let outcome = try await run(
                    opening: opener, replica: replica, group: current, mode: .live, logger: logger, signals: signals, budget: budget,
                    configuration: configuration, dialEpoch: redialer.dialEpoch, onAuthenticated: { place.leave() })
                observer(outcome)
                if outcome.failure == .removedFromGroup {
                    place.leave()
                    signals.removedFromGroupShown()
                    logger.warning(
                        "this device was removed from the group: no more dials", metadata: ["peer": "\(opener)"])
                    return
                }
                redialer.connectionEnded(authenticated: outcome.peer != nil, failure: outcome.failure, group: current)
            } catch {
                guard !Task.isCancelled, !(error is CancellationError) else { return }  // `serve` is stopping
                let reason = (error as? DialFailure)?.reason ?? "\(error)"
                logger.log(
                    level: unreachable.isDue(reason) ? .info : .debug, "could not connect",
                    metadata: ["peer": "\(opener)", "reason": "\(reason)"])
            }
            place.leave()  // the backoff holds no place
            let delay = redialer.nextDelay { UInt64.random(in: $0) }
            try? await Task.sleep(for: .milliseconds(delay))
        }
    }
}
