import HyzerCrypto
import HyzerDomain
import HyzerKit

/// One connection's engine over its replica: the only code that carries out `SyncEngine`'s
/// actions (docs/architecture.md, "One connection driver"). Synchronous and transport-free: the
/// caller hands it frames, ticks and store changes, and gets back only bytes to write, a close
/// or a finish. The NIO shell runs it off the event loops over TCP, the simulator over its
/// simulated streams, the tests back to back, so none of them can differ in what an action does:
/// - a delta is read for the peer, unless the peer was removed from the group while connected
///   (`SyncFailure.peerRemoved`: it is sent nothing more, docs/security.md);
/// - a delta answering a store change is shared with the process's other connections through
///   `sharing` (`DeltaSharing`);
/// - a bundle is ingested, then what follows every ingest (`Replica.afterIngest`: a device
///   signs its receipt of a round whose finish just arrived, docs/domain.md, "Round receipts");
///   the engine is told the bundle's own sender vector and the store's vector after it;
/// - a joiner is admitted or refused by the store;
/// - the peer's belief is checked against what the store holds or holds aside
///   (docs/sync-protocol.md, "Live connections heal").
///
/// A store failure closes the connection with `storeFailed`. An observer hook that throws
/// ends the call with its error. Store work the engine does not await (a `Taken` performed
/// twice) is refused before any of it is done, with `Misuse`, and the driver is over: the engine
/// itself would stop the process on an answer nobody asked for (`SyncEngine.Outstanding`).
public struct ConnectionDriver {
    /// A call the driver's caller should not have made: the driver did none of its store work,
    /// and is over.
    public enum Misuse: Error, Equatable, Sendable, CustomStringConvertible {
        /// Store work that answers nothing the engine awaits (it awaits `outstanding`): a
        /// `Taken` performed twice, or after a later one.
        case storeWorkNotAsked(outstanding: SyncEngine.Outstanding)

        /// What was refused, for the log.
        public var description: String {
            switch self {
            case .storeWorkNotAsked(let outstanding): "store work the engine did not ask for (it awaits \(outstanding))"
            }
        }
    }

    /// What the caller does, in order.
    public enum Output: Equatable, Sendable {
        /// Write one frame's bytes.
        case write([UInt8])
        /// Close the connection: the exchange failed.
        case close(SyncFailure)
        /// Close the connection: the exchange completed.
        case finish
    }

    /// What crossed the connection so far.
    public struct Counts: Equatable, Sendable {
        /// Ops sent to the peer in bundles.
        public var opsSent = 0
        /// Ops from the peer's bundles that were new to the store.
        public var opsReceived = 0
        /// Bundles received and ingested.
        public var bundlesReceived = 0
        /// Times the peer's belief of what this side holds was corrected (`holds` sent).
        public var holdingsSent = 0
        /// Frame bytes with their 4-byte length prefix.
        public var bytesSent = 0
        /// Frame bytes received, with their 4-byte length prefix.
        public var bytesReceived = 0
        /// Of those, both ways, the frames before the encrypted stream opened: the handshake and
        /// the stream headers.
        public var handshakeBytes = 0
    }

    /// The replica whose store the driver reads and writes.
    public let replica: Replica
    /// The group the connection authenticates with.
    public let group: GroupMembership
    /// The protocol's state machine, which the driver feeds.
    public private(set) var engine: SyncEngine
    /// What crossed the connection so far.
    public private(set) var counts = Counts()
    /// Shares the reads that answer a store change with the process's other connections.
    public var sharing: DeltaSharing?
    /// Hooks around the store work; `nil` for none (everything that ships).
    public var observer: ConnectionObserver?
    /// Set once the driver closed or finished (by the engine, or a store failure).
    public private(set) var isOver = false
    /// Whether the store's vector was read since the peer proved itself.
    private var toldVector = false
    /// The delta `storeChanged` read above what the peer held, for the engine's ask that follows.
    private var readAhead: (above: VersionVector, delta: Delta)?

    /// A driver for one connection of `replica` in `group`, as `role`, one-shot or live (`mode`).
    /// `ephemeral` is the connection's fresh X25519 key pair (drawn by the caller), `budget` the
    /// process's memory for partial bundles, `dialEpoch` a dialer's older group epoch to dial with
    /// (`nil`: the newest), `seenHellos` a listener's record of verified first messages (replays
    /// are refused), and `now` the caller's monotonic clock in milliseconds. Reads nothing yet: the
    /// store's vector is read once the peer proved itself.
    public init(
        replica: Replica, group: GroupMembership, role: Handshake.Role, mode: SyncSession.Mode, ephemeral: KeyExchange,
        budget: BundleBudget, configuration: SyncEngine.Configuration = .init(), acknowledgement: AcknowledgementRule = .whatTheStoreHolds,
        dialEpoch: UInt32? = nil, seenHellos: SeenHellos? = nil, now: UInt64
    ) {
        self.replica = replica
        self.group = group
        // The local vector is read once the peer has proved it is a member: a stranger costs no store work.
        engine = SyncEngine(
            role: role, mode: mode, author: replica.author, sign: { replica.signature(of: $0) }, group: group, ephemeral: ephemeral,
            localVector: VersionVector(), budget: budget, configuration: configuration, acknowledgement: acknowledgement,
            dialEpoch: dialEpoch, seenHellos: seenHellos, now: now)
    }

    /// The peer the handshake proved, once it did.
    public var peer: AuthorID? { engine.peer }

    /// The earliest time at which `tick` has something to do: the engine's next deadline, or
    /// now while held ops may make room aside for the peer's belief; nil once over.
    public var nextTickDue: UInt64? {
        guard !isOver else { return nil }
        return engine.awaitsRoomAside ? 0 : engine.nextDeadline
    }

    /// The dialer's first message.
    public mutating func start(now: UInt64) throws -> [Output] {
        assert(counts.bytesSent == 0 && counts.bytesReceived == 0, "a connection starts once, first")
        return try perform(engine.start(now: now), now: now)
    }

    /// One frame from the peer.
    public mutating func receive(frame: [UInt8], now: UInt64) throws -> [Output] {
        let taken = take(frame: frame, now: now)
        assert(isOver || taken.needsStore || engine.outstanding == .nothing, "what needs no store asks for none")
        return try perform(taken)
    }

    /// What the engine made of a frame, not yet carried out (`take(frame:now:)`).
    public struct Taken: Sendable {
        fileprivate let actions: [SyncEngine.Action]
        fileprivate let now: UInt64
        /// Carrying it out reads or writes the store: the caller runs `perform` where blocking
        /// work may run. A heartbeat, a `have` or a reconcile step needs nothing of it.
        public let needsStore: Bool
    }

    /// One frame from the peer, taken by the engine alone (no store work): the first half of
    /// `receive`, which lets the NIO shell keep frames that need no store off the thread pool
    /// (docs/performance.md, "A crowd").
    public mutating func take(frame: [UInt8], now: UInt64) -> Taken {
        guard !isOver else { return Taken(actions: [], now: now, needsStore: false) }
        assert(engine.outstanding == .nothing, "a frame is taken once the store work of the last one is done")
        counts.bytesReceived += frame.count + 4
        if !engine.isOpen { counts.handshakeBytes += frame.count + 4 }
        let actions = engine.receive(frame: frame, now: now)
        let needsStore =
            (!toldVector && engine.peer != nil)
            || actions.contains { action in
                switch action {
                case .prepareDelta, .ingest, .admit, .readHoldings: true
                case .write, .close, .finish: false
                }
            }
        assert(needsStore || !actions.contains(where: SyncEngine.asksTheStore), "store work is never done inline")
        return Taken(actions: actions, now: now, needsStore: needsStore)
    }

    /// The second half of `receive`: carries out what the engine made of a frame.
    public mutating func perform(_ taken: Taken) throws -> [Output] {
        assert(taken.needsStore || !taken.actions.contains(where: SyncEngine.asksTheStore), "a taken frame says what it needs")
        return try perform(taken.actions, now: taken.now)
    }

    /// Time passed: timeouts and heartbeats. While the peer's wrong belief waits for room aside,
    /// held ops whose time has come are applied first: that write is what can make room, and the
    /// driver takes it as a change of the store at once.
    public mutating func tick(now: UInt64) throws -> [Output] {
        guard !isOver else { return [] }
        assert(engine.outstanding == .nothing, "time passes between calls, never inside one")
        var outputs: [Output] = []
        if engine.awaitsRoomAside {
            let released: Bool
            do { released = try replica.releaseDueHeldSegments() } catch { return storeFailed(error) }
            if released { outputs = try storeChanged(now: now) }
        }
        return outputs + (try perform(engine.tick(now: now), now: now))
    }

    /// The store changed (a command, another connection's ingest, another process): a live
    /// engine sends its peer what it lacks, with the reads shared through `sharing`. A change is
    /// usually news the peer lacks, and the engine then asks for the delta above what the peer
    /// holds: that delta is read first, and its snapshot's vector is the store's, so one read
    /// answers the change. When a held segment's time has come, the vector is read the way every
    /// sync starts (`Replica.versionVector()` applies it) and the delta afresh.
    public mutating func storeChanged(now: UInt64) throws -> [Output] {
        guard !isOver, engine.isOpen else { return [] }
        assert(readAhead == nil && engine.outstanding == .nothing, "a change is taken between calls, never inside one")
        let replica = replica
        let vector: VersionVector
        do {
            let delta = try readDelta(above: engine.peerHolds, answeringChange: true)
            if delta.releaseDue {
                let read = { try replica.versionVector() }
                vector = try sharing?.vectorAfterLatestChange(read) ?? read()
            } else {
                vector = delta.vector
                readAhead = (engine.peerHolds, delta)
            }
        } catch {
            return storeFailed(error)
        }
        defer { readAhead = nil }
        try observer?.vectorRead(vector)
        return try perform(engine.localChanged(localVector: vector, now: now), now: now, answeringChange: true)
    }

    /// `storeChanged(now:)` when `sharing` already holds the delta the peer lacks after the latest
    /// change, with no held segment due (`serve` reads it on the writer's thread as the commit
    /// lands: `ConnectionSignals.watch(_:)`): no store work at all, so the NIO shell runs it
    /// inline. Nil, having done nothing, when the delta is not shared.
    public mutating func storeChangedFromSharing(now: UInt64) throws -> [Output]? {
        guard !isOver, engine.isOpen, let delta = sharing?.sharedDelta(deltaRequest(above: engine.peerHolds)), !delta.releaseDue
        else { return nil }
        assert(readAhead == nil && engine.outstanding == .nothing, "a change is taken between calls, never inside one")
        readAhead = (engine.peerHolds, delta)
        defer { readAhead = nil }
        try observer?.vectorRead(delta.vector)
        return try perform(engine.localChanged(localVector: delta.vector, now: now), now: now, answeringChange: true)
    }

    /// The connection ended (the peer closed it, or reading failed).
    public mutating func connectionClosed() throws -> [Output] {
        guard !isOver else { return [] }
        assert(readAhead == nil, "the connection closes between calls, never inside one")
        return try perform(engine.connectionClosed(), now: 0)
    }

    // MARK: - Actions

    private mutating func perform(_ actions: [SyncEngine.Action], now: UInt64, answeringChange: Bool = false) throws -> [Output] {
        var outputs: [Output] = []
        // Store work is done only for the engine's outstanding ask (at most one, the last
        // action): an answer nobody asked for would stop the process in the engine.
        if let ask = actions.last(where: SyncEngine.asksTheStore), !engine.awaits(ask) {
            isOver = true
            throw Misuse.storeWorkNotAsked(outstanding: engine.outstanding)
        }
        var pending = actions[...]
        while let action = pending.popFirst(), !isOver {
            let next: [SyncEngine.Action]
            assert(!SyncEngine.asksTheStore(action) || engine.awaits(action), "each ask is answered before the next")
            do {
                switch action {
                case .write(let bytes):
                    counts.bytesSent += bytes.count + 4
                    // The hello leaves in the step the stream opened in; the headers before it.
                    if !engine.isOpen { counts.handshakeBytes += bytes.count + 4 }
                    outputs.append(.write(bytes))
                    next = []
                case .prepareDelta(let above):
                    next = try prepareDelta(above: above, now: now, shared: answeringChange)
                case .ingest(let bundle):
                    guard let actions = try ingest(bundle, now: now) else {
                        isOver = true
                        return outputs
                    }
                    next = actions
                case .admit(let request):
                    let admission = try replica.admit(request)
                    observer?.admitted(request, admission)
                    next = engine.admitted(admission, now: now)
                case .readHoldings:
                    let holdings = try replica.holdings()
                    next = engine.holdingsRead(holdings, now: now)
                    if !next.isEmpty {
                        counts.holdingsSent += 1
                        observer?.holdingsSent(holdings)
                    }
                case .close(let failure):
                    isOver = true
                    return outputs + [.close(failure)]
                case .finish:
                    isOver = true
                    return outputs + [.finish]
                }
            } catch let error as DriverError {
                throw error.underlying
            } catch let failure as SyncFailure {
                return outputs + close(failure)
            } catch {
                return outputs + storeFailed(error)
            }
            pending = next[...] + pending
        }
        assert(isOver || engine.outstanding == .nothing, "a call leaves no store work outstanding")
        if !isOver, !toldVector, engine.peer != nil {
            // The peer proved it is a member: now the store is worth reading (for the hello,
            // sent once the stream opens).
            toldVector = true
            let vector: VersionVector
            do { vector = try replica.versionVector() } catch { return outputs + storeFailed(error) }
            try observer?.vectorRead(vector)
            outputs += try perform(engine.localChanged(localVector: vector, now: now), now: now)
        }
        return outputs
    }

    private mutating func prepareDelta(above: VersionVector, now: UInt64, shared: Bool) throws -> [SyncEngine.Action] {
        assert(engine.isOpen && engine.peer != nil, "a delta goes to a peer that proved itself")
        let delta = try readAhead.flatMap { $0.above == above ? $0.delta : nil } ?? readDelta(above: above, answeringChange: shared)
        // A peer removed while connected is sent nothing more (docs/security.md): the removals
        // come from the delta's own snapshot, so a shared delta is checked for each peer.
        if let peer = engine.peer, delta.removed.contains(peer) { throw SyncFailure.peerRemoved(peer) }
        let extra: [[UInt8]]
        do { extra = try observer?.deltaRead(delta, above: above) ?? [] } catch { throw DriverError(underlying: error) }
        counts.opsSent += delta.ops
        return engine.deltaPrepared(delta.bundles + extra, upTo: delta.vector, now: now)
    }

    /// The delta above `above`; one that answers a change is shared through `sharing`.
    private func readDelta(above: VersionVector, answeringChange: Bool) throws -> Delta {
        let (replica, group) = (replica, group)
        let bytesMax = engine.configuration.bundleBytesMax
        let read = { try replica.deltaBundles(above: above, group: group, bytesMax: bytesMax) }
        guard answeringChange, let sharing else { return try read() }
        return try sharing.deltaAfterLatestChange(deltaRequest(above: above), read)
    }

    private func deltaRequest(above: VersionVector) -> DeltaRequest {
        DeltaRequest(above: above, group: group.id, bytesMax: engine.configuration.bundleBytesMax)
    }

    /// Ingests a checked bundle; nil when the observer says the device is gone.
    private mutating func ingest(_ bundle: Bundle, now: UInt64) throws -> [SyncEngine.Action]? {
        assert(bundle.sender == engine.peer, "the engine checked the bundle's sender")
        let segments = observer?.segmentsToIngest(bundle) ?? bundle.segments
        // What the store holds now, read on the writer's connection after the last commit.
        let (report, vectorAfterIngest) = try replica.ingestReadingVector(segments)
        var vector = vectorAfterIngest
        // The step after every ingest (`Replica.afterIngest`): receipts of a round whose finish
        // just arrived, which then go out as any change (live: at once; one-shot: with the next sync).
        if try replica.afterIngest(finishesApplied: report.finishesApplied) > 0 {
            vector = try replica.versionVector()
        }
        counts.opsReceived += report.opsApplied
        counts.bundlesReceived += 1
        do {
            guard try observer?.ingested(segments, of: bundle, report: report, vector: vector) ?? true else { return nil }
        } catch { throw DriverError(underlying: error) }
        return engine.ingested(senderVector: bundle.senderVector, localVector: vector, now: now)
    }

    private mutating func close(_ failure: SyncFailure) -> [Output] {
        assert(!isOver, "a connection closes once")
        isOver = true
        return [.close(failure)]
    }

    private mutating func storeFailed(_ error: any Error) -> [Output] {
        close(.storeFailed("\(error)"))
    }

    /// An observer's error, carried past the driver's own handling of store errors.
    private struct DriverError: Error {
        let underlying: any Error
    }
}
