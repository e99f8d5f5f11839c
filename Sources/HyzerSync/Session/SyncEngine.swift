import HyzerCrypto
import HyzerDomain
import HyzerKit

/// One connection's whole protocol as a synchronous state machine: the handshake, the
/// secretstream header exchange, sealing and opening every frame, the `SyncSession`, bundle
/// part assembly within a memory budget, the check that a bundle's sender is the peer the
/// handshake proved (before anything is ingested), heartbeats and timeouts.
///
/// It takes frames and events and returns actions; it holds no clock (every input carries a
/// monotonic `now` in milliseconds), draws no randomness (the ephemeral key comes from the
/// caller) and does no I/O. The network shell performs the actions; the simulator can drive
/// it without sockets or real time. Store work is asked for with `prepareDelta`, `ingest`,
/// `readHoldings` and `admit`, and answered with `deltaPrepared`, `ingested`, `holdingsRead` and
/// `admitted`; until the answer, later sends wait, so the frames leave in protocol order. What
/// is asked and not yet answered is a value of the state (`Outstanding`): an answer nobody
/// asked for is a broken shell, and stops the process (`preconditionFailure`), as swift-nio's
/// state machines do; a shell checks `awaits(_:)` first and fails with a type of its own
/// (`ConnectionDriver.Misuse`).
public struct SyncEngine {
    /// Timing and size bounds (docs/sync-protocol.md, bounds).
    public struct Configuration: Sendable {
        /// Time from the connection's start to an open encrypted stream.
        public var handshakeTimeoutMilliseconds: UInt64 = 5_000
        /// A listener's time from the connection's start to the dialer's first message, when
        /// shorter than the handshake's: a socket that says nothing gives its place back sooner
        /// (`serve` uses 2 s, `PeerServer.configuration`). `nil`: the handshake's time.
        public var firstMessageTimeoutMilliseconds: UInt64?
        /// After this long without sending anything, send a heartbeat; the hello says so, and a
        /// listener's sets the pace of both sides (`SyncEngine.heartbeatMilliseconds`).
        public var heartbeatMilliseconds: UInt64 = 5_000
        /// After this long without receiving anything, the peer is dead; longer when the
        /// heartbeats are (`SyncEngine.deadMilliseconds`).
        public var deadMilliseconds: UInt64 = 15_000
        /// After the handshake, and unless the exchange is live, the time the peer has between
        /// protocol messages (heartbeats do not count).
        public var idleMilliseconds: UInt64 = 30_000
        /// Time the peer has to accept one frame before the connection counts as stalled.
        public var writeTimeoutMilliseconds: UInt64 = 15_000
        /// The largest bundle, in bytes, a connection buffers (and the largest this side sends).
        public var bundleBytesMax = 8 * 1024 * 1024

        /// The shipped bounds.
        public init() {}
    }

    /// What the shell does, in order.
    public enum Action: Sendable {
        /// Write one frame's bytes.
        case write([UInt8])
        /// Encode the delta above `above` as bundles of at most `bundleBytesMax` bytes each and
        /// hand them to `deltaPrepared(_:upTo:now:)`.
        case prepareDelta(above: VersionVector)
        /// Ingest this bundle, whose sender is the authenticated peer, then call `ingested`.
        case ingest(Bundle)
        /// A device with an invitation asks to be admitted (docs/security.md, "Invitations"):
        /// decide with `Replica.admit` and hand the result to `admitted(_:now:)`.
        case admit(JoinRequest)
        /// Read `Replica.holdings()` and hand them to `holdingsRead(_:now:)`: the peer's belief of
        /// what this side holds may be wrong (docs/sync-protocol.md, "Live connections heal").
        case readHoldings
        /// Close the connection: the exchange failed.
        case close(SyncFailure)
        /// Close the connection: the exchange completed.
        case finish
    }

    /// The largest bundle part: frames stay under `Framing.frameBytesMax`.
    public static let bundlePartBytes = 256 * 1024
    /// The frames each side receives before the stream opens: two handshake messages and a stream header.
    public static let handshakeFrames = 3
    /// The largest of those frames, or of a join request and its reply (which take their place).
    public static let handshakeFrameBytesMax = max(
        Handshake.helloBytes, Handshake.identityBytesMax, SecretStream.headerBytes, JoinRequest.byteCount, JoinAnswer.byteCount)

    enum Stage {
        case handshaking(Handshake)
        /// Keys agreed, our header sent; waiting for the peer's.
        case awaitingHeader(SessionKeys, SecretStream.Sender)
        case open(SessionKeys, SecretStream.Sender, SecretStream.Receiver)
        /// A join request came instead of a hello; waiting for the store's decision.
        case admitting
        case closed
    }

    /// The store work asked for and not yet answered: at most one at a time.
    public enum Outstanding: Equatable, Sendable {
        /// None: sends go out as they come.
        case nothing
        /// `prepareDelta`, answered by `deltaPrepared`.
        case delta
        /// `ingest`, answered by `ingested`; the bundle holds `bytes` of the budget until then.
        case ingest(bytes: Int)
        /// `readHoldings`, answered by `holdingsRead`.
        case holdings
        /// `admit`, answered by `admitted`.
        case admission
    }

    /// Work queued behind outstanding store work.
    enum Step {
        case send(SyncMessage)
        case prepareDelta(above: VersionVector)
        case acknowledge
        case finish
        case ingest(Bundle, bytes: Int)
        case readHoldings
    }

    /// The connection's timing and size bounds.
    public let configuration: Configuration
    private let role: Handshake.Role
    private let acknowledgement: AcknowledgementRule
    private let group: GroupMembership
    private var stage: Stage
    private var session: SyncSession
    /// The local vector as last reported: sent in `hello` and `have`.
    private var localVector: VersionVector
    private var steps: [Step] = []
    /// The store work asked for and not yet answered.
    public private(set) var outstanding = Outstanding.nothing
    private var parts: [[UInt8]] = []
    private var partBytes = 0
    private let reservation: BundleBudget.Reservation
    private let startedAt: UInt64
    private var lastSent: UInt64
    private var lastReceived: UInt64
    private var lastProgress: UInt64
    /// The device the handshake proved the peer to be; `nil` until it did.
    public private(set) var peer: AuthorID?

    /// What the peer is known to hold: its hello, its `have`s, what was sent to it.
    public var peerHolds: VersionVector { session.peerHolds }
    /// Moves whenever `peerHolds` is set (`SyncSession.peerHoldsRevision`).
    public var peerHoldsRevision: Int { session.peerHoldsRevision }

    /// What the peer itself said it holds: its hello and its `have`s.
    public var peerReported: VersionVector { session.peerReported }

    /// An engine for one connection as `role`, asking for `mode`. `author` and `sign` are this
    /// device's key and signature; `ephemeral` the connection's fresh X25519 key pair; `localVector`
    /// what the store holds (reported in `hello`); `budget` the process's memory for partial
    /// bundles; `dialEpoch` a dialer's older group epoch (`nil`: the newest); `seenHellos` a
    /// listener's record of first messages (replays are refused); `now` the caller's monotonic
    /// clock in milliseconds.
    public init(
        role: Handshake.Role, mode: SyncSession.Mode, author: AuthorID, sign: @escaping ([UInt8]) -> [UInt8], group: GroupMembership,
        ephemeral: KeyExchange, localVector: VersionVector, budget: BundleBudget, configuration: Configuration = Configuration(),
        acknowledgement: AcknowledgementRule = .whatTheStoreHolds, dialEpoch: UInt32? = nil, seenHellos: SeenHellos? = nil, now: UInt64
    ) {
        self.configuration = configuration
        self.role = role
        self.acknowledgement = acknowledgement
        self.group = group
        self.stage = .handshaking(
            Handshake(
                role: role, author: author, sign: sign, group: group, ephemeral: ephemeral, dialEpoch: dialEpoch, seenHellos: seenHellos))
        self.session = SyncSession(mode: mode, heartbeatMilliseconds: UInt32(clamping: configuration.heartbeatMilliseconds))
        self.localVector = localVector
        self.reservation = BundleBudget.Reservation(budget)
        self.startedAt = now
        self.lastSent = now
        self.lastReceived = now
        self.lastProgress = now
    }

    /// The exchange is over (finished or failed): the engine ignores further input.
    public var isClosed: Bool {
        if case .closed = stage { true } else { false }
    }

    /// The encrypted stream is open both ways.
    public var isOpen: Bool {
        if case .open = stage { true } else { false }
    }

    /// A listener still waiting for the dialer's first message.
    public var awaitsFirstMessage: Bool {
        if case .handshaking(let handshake) = stage { handshake.awaitsFirstMessage } else { false }
    }

    /// A listener whose dialer's first message verified (it holds the group secret) and that has
    /// not closed: worth keeping through a crowd from the dialer's address.
    public var verifiedFirstMessage: Bool {
        switch stage {
        case .handshaking(let handshake): handshake.verifiedFirstMessage
        case .awaitingHeader, .open: true
        case .admitting, .closed: false
        }
    }

    /// Live: the peer's belief of what this side holds is wrong, and the store had no room aside
    /// to take what it lacks when it was read; nothing is read again for that belief until the
    /// store changes (docs/sync-protocol.md, "Live connections heal").
    public var awaitsRoomAside: Bool { session.awaitsRoomAside }

    /// The agreed mode (one-shot unless both sides asked for live).
    public var mode: SyncSession.Mode { session.mode }

    /// Bytes of partial bundles this connection holds.
    public var bufferedBundleBytes: Int { reservation.bytes }

    /// Whether `action`, a store action this engine returned, is the work it awaits: a shell
    /// checks this before carrying one out, so that it never hands the engine an answer nobody
    /// asked for (a store action performed twice, or after another one).
    public func awaits(_ action: Action) -> Bool {
        switch (action, outstanding) {
        case (.prepareDelta, .delta), (.ingest, .ingest), (.readHoldings, .holdings), (.admit, .admission): true
        default: false
        }
    }

    /// The dialer's first message (nothing for the listener, which speaks second).
    public mutating func start(now: UInt64) -> [Action] {
        assert(outstanding == .nothing && steps.isEmpty, "nothing is asked before the first message")
        guard case .handshaking(var handshake) = stage, let hello = handshake.start() else { return [] }
        stage = .handshaking(handshake)
        return [write(hello, now: now)]
    }

    /// One frame from the peer.
    public mutating func receive(frame: [UInt8], now: UInt64) -> [Action] {
        lastReceived = now
        switch stage {
        case .closed:
            return []
        case .admitting:
            return close(.protocolViolation(.messageDuringAdmission))
        case .handshaking(var handshake):
            // Told before the listener's hello only; believed no further than its wording (`ListenerBusy`).
            if handshake.awaitsListenerHello, let busy = ListenerBusy(frame: frame) { return close(.listenerBusy(busy)) }
            if handshake.awaitsFirstMessage, frame.count == JoinRequest.byteCount, let request = JoinRequest(decoding: frame) {
                assert(outstanding == .nothing, "a join request is the connection's first frame")
                stage = .admitting
                outstanding = .admission
                return [.admit(request)]
            }
            let step: Handshake.Step
            do { step = try handshake.receive(frame) } catch {
                switch error {
                case .notAGroupMember: return close(.notAGroupMember)
                case .removedFromGroup: return close(.removedFromGroup)
                default: return close(.handshakeRefused(error))
                }
            }
            switch step {
            case .send(let reply):
                stage = .handshaking(handshake)
                return [write(reply, now: now)]
            case .established(let keys, let reply):
                let sender = SecretStream.Sender(key: keys.sendKey)
                peer = keys.peer
                stage = .awaitingHeader(keys, sender)
                return (reply.map { [write($0, now: now)] } ?? []) + [write(sender.header, now: now)]
            case .refuse(let reply, let error):
                return [write(reply, now: now)] + close(.handshakeRefused(error))
            }
        case .awaitingHeader(let keys, let sender):
            guard let receiver = SecretStream.Receiver(key: keys.receiveKey, header: frame) else { return close(.malformedStreamHeader) }
            stage = .open(keys, sender, receiver)
            lastProgress = now
            return run(session.start(localVector: localVector), now: now)
        case .open(let keys, let sender, var receiver):
            guard let plain = receiver.open(frame) else { return close(.frameAuthenticationFailed) }
            stage = .open(keys, sender, receiver)
            guard let message = try? SyncMessage(decoding: plain) else { return close(.malformedMessage) }
            switch message {
            case .heartbeat, .heartbeatWithDigest: break
            default: lastProgress = now
            }
            return run(session.receive(message), now: now)
        }
    }

    /// The shell's answer to `admit`: the reply goes back, and the connection ends.
    public mutating func admitted(_ admission: Admission, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        answer(.admission)
        assert(steps.isEmpty, "nothing queues behind an admission")
        stage = .closed
        let reply = admission.reply.map { [write($0, now: now)] } ?? []
        guard let refusal = admission.refusal else { return reply + [.finish] }
        return reply + [.close(.joinRefused(refusal))]
    }

    /// The shell's answer to `prepareDelta`: the encoded bundles (none when the peer lacks
    /// nothing), which bring the peer up to `vector`.
    public mutating func deltaPrepared(_ bundles: [[UInt8]], upTo vector: VersionVector, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        answer(.delta)
        assert(isOpen, "a delta is asked for on the open stream only")
        var actions: [Action] = []
        for bundle in bundles {
            guard bundle.count <= configuration.bundleBytesMax else {
                return actions + close(.deltaTooLarge(bytes: bundle.count, limit: configuration.bundleBytesMax))
            }
            var offset = 0
            repeat {
                let end = min(offset + Self.bundlePartBytes, bundle.count)
                actions += seal(.bundlePart(bytes: Array(bundle[offset..<end]), final: end == bundle.count), now: now)
                offset = end
            } while offset < bundle.count
        }
        session.deltaSent(upTo: vector, bundles: bundles.count)
        return actions + drain(now: now)
    }

    /// The shell's answer to `ingest`: the bundle's sender held `senderVector`, and the local
    /// store now holds `localVector` (a live `have` reports what `acknowledgement` makes of the two).
    public mutating func ingested(senderVector: VersionVector, localVector: VersionVector, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        guard case .ingest(let bytes) = outstanding else { preconditionFailure("ingested answers no ingest (\(outstanding))") }
        assert(bytes <= reservation.bytes, "the bundle's bytes are still reserved")
        outstanding = .nothing
        reservation.shrink(by: bytes)
        self.localVector = localVector
        return run(session.ingested(senderVector: senderVector, acknowledged: acknowledgement.reports(localVector, senderVector)), now: now)
    }

    /// The shell's answer to `readHoldings`.
    public mutating func holdingsRead(_ holdings: Holdings, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        answer(.holdings)
        assert(isOpen, "holdings are asked for on the open stream only")
        return run(session.holdingsRead(holdings), now: now)
    }

    /// The local store changed (another process, or another connection ingested).
    public mutating func localChanged(localVector: VersionVector, now: UInt64) -> [Action] {
        guard isOpen else {
            self.localVector = localVector
            return []
        }
        self.localVector = localVector
        return run(session.localChanged(localVector: localVector), now: now)
    }

    /// The silences a listener's hello may set, from 0.1 s to a minute.
    public static let heartbeatMillisecondsRange: ClosedRange<UInt64> = 100...60_000

    /// The silence after which this side sends a heartbeat. The listener sets the pace for both
    /// sides: its own configuration, which its hello tells the dialer (within
    /// `heartbeatMillisecondsRange`), so a `serve` holding a crowd asks its peers for fewer
    /// heartbeats each way (docs/sync-protocol.md, "Heartbeats and dead peers").
    public var heartbeatMilliseconds: UInt64 {
        guard role == .dialer, let asked = session.peerHeartbeatMilliseconds else { return configuration.heartbeatMilliseconds }
        return min(max(UInt64(asked), Self.heartbeatMillisecondsRange.lowerBound), Self.heartbeatMillisecondsRange.upperBound)
    }

    /// The silence after which the peer is dead: three heartbeats, and at least the configured time.
    public var deadMilliseconds: UInt64 { max(configuration.deadMilliseconds, 3 * heartbeatMilliseconds) }

    /// The earliest time at which `tick` has something to do (a timeout, a heartbeat), or nil
    /// once closed: a driver may tell the engine the time then rather than every second.
    public var nextDeadline: UInt64? {
        func after(_ start: UInt64, _ milliseconds: UInt64) -> UInt64 {
            let (sum, overflow) = start.addingReportingOverflow(milliseconds)
            return overflow ? .max : sum
        }
        switch stage {
        case .closed:
            return nil
        case .handshaking, .awaitingHeader, .admitting:
            let handshake = after(startedAt, configuration.handshakeTimeoutMilliseconds)
            guard awaitsFirstMessage, let first = configuration.firstMessageTimeoutMilliseconds else { return handshake }
            return min(handshake, after(startedAt, first))
        case .open:
            let dead = after(lastReceived, deadMilliseconds)
            let heartbeat = after(lastSent, heartbeatMilliseconds)
            let idle = session.isLive ? UInt64.max : after(lastProgress, configuration.idleMilliseconds)
            return min(dead, heartbeat, idle)
        }
    }

    /// Time passed: timeouts, and a heartbeat after a silence.
    public mutating func tick(now: UInt64) -> [Action] {
        switch stage {
        case .closed:
            return []
        case .handshaking, .awaitingHeader, .admitting:
            var limit = configuration.handshakeTimeoutMilliseconds
            if awaitsFirstMessage, let first = configuration.firstMessageTimeoutMilliseconds { limit = min(limit, first) }
            return now &- startedAt >= limit ? close(.handshakeTimeout) : []
        case .open:
            if now &- lastReceived >= deadMilliseconds { return close(.peerDead) }
            if !session.isLive, now &- lastProgress >= configuration.idleMilliseconds { return close(.idleTimeout) }
            return now &- lastSent >= heartbeatMilliseconds ? seal(session.heartbeat(), now: now) : []
        }
    }

    /// The connection ended (the peer closed it, or reading failed): a failure unless the
    /// exchange had completed. Before identities are exchanged it is `closedDuringHandshake`:
    /// a listener of another group closes as soon as our first message fails its check. Once a
    /// dialer's identity went to a listener that proved the group secret, a close is that member
    /// refusing it (`notAdmittedByPeer`): the organizer may have removed this device, or the
    /// member has not heard of its admission yet (a member holding the organizer's signed removal
    /// shows it first, `removedFromGroup`).
    public mutating func connectionClosed() -> [Action] {
        let failure: SyncFailure
        switch stage {
        case .closed: return []
        case .handshaking(let handshake): failure = handshake.sentIdentityToAMember ? .notAdmittedByPeer : .closedDuringHandshake
        case .admitting: failure = .closedDuringHandshake
        case .awaitingHeader, .open: failure = .connectionLost
        }
        stage = .closed
        release()
        return [.close(failure)]
    }

    // MARK: - Steps

    /// Queues the session's actions and performs what is not waiting for store work.
    private mutating func run(_ actions: [SyncSession.Action], now: UInt64) -> [Action] {
        var immediate: [Action] = []
        for action in actions {
            switch action {
            case .receivePart(let bytes, let final):
                // Parts are assembled on arrival so the budget sees them at once.
                immediate += assemble(bytes, final: final)
                if isClosed { return immediate }
            case .fail(let failure):
                // A failure does not wait for store work: nothing queued is sent.
                return immediate + close(failure)
            case .send(let message): steps.append(.send(message))
            case .sendDelta(let above): steps.append(.prepareDelta(above: above))
            case .acknowledge: steps.append(.acknowledge)
            case .finish: steps.append(.finish)
            case .readHoldings: steps.append(.readHoldings)
            }
        }
        return immediate + drain(now: now)
    }

    private mutating func drain(now: UInt64) -> [Action] {
        var actions: [Action] = []
        while outstanding == .nothing, !isClosed, !steps.isEmpty {
            switch steps.removeFirst() {
            case .ingest(let bundle, let bytes):
                assert(bytes <= reservation.bytes, "an assembled bundle's bytes stay reserved until it is ingested")
                outstanding = .ingest(bytes: bytes)
                actions.append(.ingest(bundle))
            case .send(let message):
                actions += seal(message, now: now)
            case .prepareDelta(let above):
                outstanding = .delta
                actions.append(.prepareDelta(above: above))
            case .acknowledge:
                actions += seal(session.have(reporting: localVector), now: now)
            case .finish:
                stage = .closed
                release()
                actions.append(.finish)
            case .readHoldings:
                outstanding = .holdings
                actions.append(.readHoldings)
            }
        }
        // A store action, when one was asked, is the last: the shell answers it before anything else.
        assert(actions.dropLast().allSatisfy { !Self.asksTheStore($0) }, "one store action at a time, last")
        return actions
    }

    /// Takes the answer to `work`, which must be what is outstanding: a shell that answers what
    /// was not asked is broken, and going on would corrupt what the engine believes.
    private mutating func answer(_ work: Outstanding) {
        guard outstanding == work else { preconditionFailure("an answer to \(work), but \(outstanding) is outstanding") }
        outstanding = .nothing
    }

    /// Whether `action` asks the shell for store work.
    static func asksTheStore(_ action: Action) -> Bool {
        switch action {
        case .prepareDelta, .ingest, .admit, .readHoldings: true
        case .write, .close, .finish: false
        }
    }

    /// Adds a part to the peer's bundle; a final part completes, decodes and checks it.
    private mutating func assemble(_ bytes: [UInt8], final: Bool) -> [Action] {
        assert(isOpen, "bundle parts arrive on the open stream")
        assert(partBytes <= configuration.bundleBytesMax, "a partial bundle stays within its bound")
        let limit = configuration.bundleBytesMax
        guard bytes.count <= limit - partBytes else { return close(.bundleTooLarge(limit: limit)) }
        guard reservation.grow(by: bytes.count) else { return close(.budgetExhausted) }
        parts.append(bytes)
        partBytes += bytes.count
        guard final else { return [] }
        let whole = parts.count == 1 ? parts[0] : Array(parts.joined())
        let reserved = partBytes
        parts = []
        partBytes = 0
        // Parts arrive only on an open stream, after the handshake proved the peer.
        guard let peer else { return close(.protocolViolation(.bundleBeforeHello)) }
        let bundle: Bundle
        do { bundle = try Bundle(connectionBytes: whole, sender: peer, groupID: group.id) } catch {
            return close(.bundleRefused(error))
        }
        steps.append(.ingest(bundle, bytes: reserved))
        return []
    }

    private mutating func seal(_ message: SyncMessage, now: UInt64) -> [Action] {
        guard case .open(let keys, var sender, let receiver) = stage else { return [] }
        let sealed = sender.seal(message.encoded())
        stage = .open(keys, sender, receiver)
        return [write(sealed, now: now)]
    }

    private mutating func write(_ bytes: [UInt8], now: UInt64) -> Action {
        lastSent = now
        return .write(bytes)
    }

    /// Ends the exchange: says `bye` when the stream is open and the peer did not close first.
    private mutating func close(_ failure: SyncFailure) -> [Action] {
        var actions: [Action] = []
        if case .open = stage, !isPeerClose(failure) {
            actions = seal(.bye(reason: failure.description), now: lastSent)
        }
        stage = .closed
        release()
        return actions + [.close(failure)]
    }

    private func isPeerClose(_ failure: SyncFailure) -> Bool {
        if case .peerClosed = failure { true } else { false }
    }

    private mutating func release() {
        assert(isClosed, "released on the close")
        parts = []
        partBytes = 0
        steps = []
        outstanding = .nothing
        reservation.shrink(by: reservation.bytes)
    }
}
