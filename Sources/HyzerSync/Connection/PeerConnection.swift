import HyzerCrypto
import HyzerDomain
import HyzerKit
import Logging
import NIOPosix

/// One connection to a peer over any `ByteLink` (TCP, in memory, an app's channel): a thin
/// shell around a `ConnectionDriver`. It feeds the driver frames, ticks and store changes on
/// NIO's thread pool (never on an event loop or the cooperative pool), writes the frames it
/// returns, closes. Every protocol decision is the engine's, and every action is carried out by
/// the driver. Someone must tick `signals` (`ConnectionSignals.tick`) for timeouts and
/// heartbeats to happen: `serve` does for all its connections, `PeerDialer` for a lone one.
public struct PeerConnection: Sendable {
    /// The replica that syncs.
    public let replica: Replica
    /// The group the connection authenticates with.
    public let group: GroupMembership
    /// Whether this side dialed or listened: the dialer speaks first.
    public let role: Handshake.Role
    /// One exchange, or a live connection that stays open and pushes every store change.
    public let mode: SyncSession.Mode
    /// Where the connection logs its start, end and failures.
    public let logger: Logger
    /// Ticks, and store changes to push to the peer (live mode).
    public let signals: ConnectionSignals
    /// Memory for partial bundles, shared with the other connections of the process.
    public let budget: BundleBudget
    /// Timeouts, heartbeats and the largest bundle.
    public var configuration = SyncEngine.Configuration()
    /// A dialer's older epoch to dial with (see `Handshake`); `nil` dials with the newest.
    public var dialEpoch: UInt32?
    /// Told once, when the handshake has proved the peer.
    var onAuthenticated: @Sendable () async -> Void = {}
    /// A listener's record of verified first messages, shared by its connections (replays are refused).
    var seenHellos: SeenHellos?
    /// Told once, when a listener's first message from the dialer verified.
    var onFirstMessageVerified: @Sendable () async -> Void = {}
    /// Whether the server closed this connection to make room for a newer one (asked at the end).
    var wasEvicted: @Sendable () async -> Bool = { false }

    /// A connection of `replica` in `group`; nothing happens until it runs over a link.
    public init(
        replica: Replica, group: GroupMembership, role: Handshake.Role, mode: SyncSession.Mode, logger: Logger,
        signals: ConnectionSignals, budget: BundleBudget
    ) {
        self.replica = replica
        self.group = group
        self.role = role
        self.mode = mode
        self.logger = logger
        self.signals = signals
        self.budget = budget
    }

    enum Event: Sendable {
        case frame([UInt8])
        /// The peer closed (nil), or reading or writing failed.
        case ended(SyncFailure?)
        case signal(ConnectionSignals.Signal)
    }

    /// An event, and what to call once it is handled (which lets its producer go on).
    struct Delivery: Sendable {
        let event: Event
        let handled: @Sendable () -> Void
    }

    /// Runs the connection over `link` to its end, then closes the link; never throws: the
    /// outcome says how it ended. The same handshake and session run over any link.
    public func run(over link: any ByteLink) async -> ConnectionOutcome {
        assert(configuration.writeTimeoutMilliseconds > 0, "a write has time to be accepted")
        let clock = ContinuousClock()
        let started = clock.now
        let now: @Sendable () -> UInt64 = { UInt64((clock.now - started) / .milliseconds(1)) }
        let (events, eventSink) = AsyncStream<Delivery>.makeStream()
        let mailbox = signals.subscribe { signal, handled in eventSink.yield(Delivery(event: .signal(signal), handled: handled)) }
        defer { signals.unsubscribe(mailbox) }
        var driver = ConnectionDriver(
            replica: replica, group: group, role: role, mode: mode, ephemeral: KeyExchange(), budget: budget,
            configuration: configuration, dialEpoch: dialEpoch, seenHellos: seenHellos, now: now())
        driver.sharing = signals
        driver.observer = LogObserver(logger: logger)
        let (writes, writeSink) = AsyncStream<[UInt8]>.makeStream()
        let watch = WriteWatch(timeout: .milliseconds(configuration.writeTimeoutMilliseconds), mailbox: mailbox)
        var outcome = ConnectionOutcome()
        await withTaskGroup(of: Void.self) { writing in
            await withTaskGroup(of: Void.self) { reading in
                reading.addTask { await Self.read(link, into: eventSink) }
                var shell = Shell(connection: self, driver: driver, writes: writeSink, watch: watch)
                // The writer starts with the first write: a stranger, answered nothing, costs no writer task.
                // A deadline weeks away (or none) is as good as never: the next event sets it again.
                let ticksFrom = { @Sendable (due: UInt64?) in
                    mailbox.tickDue(due.flatMap { $0 < UInt64(Int32.max) ? .at(started + .milliseconds(Int64($0))) : nil } ?? .never)
                }
                await shell.drive(events: events, now: now, ticksFrom: ticksFrom) {
                    writing.addTask { await Self.write(writes, to: link, watch: watch, failures: eventSink) }
                }
                outcome = shell.outcome
                reading.cancelAll()
            }
            // A peer that stopped reading holds the writer in its write: it is cancelled. Otherwise
            // the writer sends what is queued (a `bye`, the last `have`), then ends.
            if case .stalled? = outcome.failure { writing.cancelAll() }
            writeSink.finish()
            await writing.waitForAll()
        }
        await link.close()
        outcome.milliseconds = Int(now())
        var evicted = false
        if outcome.peer == nil, outcome.failure != nil { evicted = await wasEvicted() }
        if evicted { outcome.failure = .evicted }
        if let peer = outcome.peer.flatMap(AuthorID.init(hex:)) { signals.progress(.closed(peer: peer)) }
        if let failure = outcome.failure {
            // An eviction is one of many under a crowd: the server logs it once a minute.
            let repeated = if case .storeFailed(let error) = failure { !signals.storeFailures.isDue(error) } else { evicted }
            logger.log(
                level: repeated ? .debug : .notice, "connection closed",
                metadata: ["peer": "\(outcome.peer ?? "unknown")", "reason": "\(failure)"])
        } else {
            logger.info("connection finished", metadata: ["peer": "\(outcome.peer ?? "unknown")"])
        }
        return outcome
    }

    /// Hands the shell one event at a time and waits until it is handled: the reader has at most
    /// one frame in the queue (signals at most one of each kind), so the queue stays bounded and a
    /// fast peer meets NIO's backpressure, which stops reading the socket. One stream of "handled"
    /// serves every event, not one per frame.
    private struct Handoff {
        let sink: AsyncStream<Delivery>.Continuation
        private let handledSink: AsyncStream<Void>.Continuation
        private var handled: AsyncStream<Void>.AsyncIterator

        init(_ sink: AsyncStream<Delivery>.Continuation) {
            self.sink = sink
            let (stream, handledSink) = AsyncStream<Void>.makeStream()
            self.handledSink = handledSink
            handled = stream.makeAsyncIterator()
        }

        /// Sends `event` and waits until it is handled (or the reader is cancelled).
        mutating func send(_ event: Event) async {
            let handledSink = handledSink
            sink.yield(Delivery(event: event, handled: { handledSink.yield() }))
            _ = await handled.next()
        }
    }

    /// Hands the link's frames to the shell one at a time, each checked against its bound first:
    /// a link's frames are untrusted (`ByteLink`).
    private static func read(_ link: any ByteLink, into sink: AsyncStream<Delivery>.Continuation) async {
        assert(SyncEngine.handshakeFrameBytesMax <= Framing.frameBytesMax, "a handshake frame is a frame")
        var handoff = Handoff(sink)
        var frames = 0
        do {
            while let frame = try await link.receive() {
                let bound = frames < SyncEngine.handshakeFrames ? SyncEngine.handshakeFrameBytesMax : Framing.frameBytesMax
                guard frame.count <= bound else { return await handoff.send(.ended(.frameTooLarge(bytes: frame.count, limit: bound))) }
                frames += 1
                await handoff.send(.frame(frame))
            }
            await handoff.send(.ended(nil))
        } catch let error as FramingError {
            switch error {
            case .frameTooLarge(let bytes, let limit): await handoff.send(.ended(.frameTooLarge(bytes: bytes, limit: limit)))
            }
        } catch {
            await handoff.send(.ended(.connectionLost))
        }
    }

    /// Writes frames in order, each watched by `watch`: the shell gives up on a peer that does not
    /// accept one in time (`WriteWatch`) and cancels the writer.
    private static func write(
        _ writes: AsyncStream<[UInt8]>, to link: any ByteLink, watch: WriteWatch, failures: AsyncStream<Delivery>.Continuation
    ) async {
        for await bytes in writes {
            watch.begin()
            do { try await link.send(bytes) } catch {
                // The main loop may be gone already: yield without waiting.
                failures.yield(Delivery(event: .ended(.connectionLost), handled: {}))
                return
            }
            watch.end()
        }
    }
}
