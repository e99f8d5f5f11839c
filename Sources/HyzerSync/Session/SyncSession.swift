import HyzerDomain
import HyzerKit

/// The sync exchange after the handshake, as a state machine the network shell drives (and
/// the simulator drives without sockets). It decides what to send and when; the shell does
/// the I/O and the store work the actions name, and reports back.
///
/// The exchange is live only when both sides ask for it in their hellos; otherwise it is
/// one-shot. Both sides send `hello` with the summaries of their vectors and reconcile the
/// ranges where they differ until each knows the other's vector (`Reconciliation`;
/// docs/sync-protocol.md, "Reconciliation"). One-shot: both then send their delta above the
/// peer's vector and `done`. A side answers the peer's `done` with `have` — by then it has ingested the peer's
/// bundle, which came before `done` on the ordered stream — and finishes once it has both the
/// peer's `done` and the peer's `have`: when `sync --peer` returns, both replicas hold both
/// deltas. Live: after the hellos, each local
/// change sends the delta above what the peer is known to hold, until either side closes.
///
/// A `have` carries only the entries that changed since the sender's previous hello or `have`:
/// the receiver applies them to what the sender told it before, which gives it the sender's
/// whole vector, as if the `have` had carried it (docs/sync-protocol.md, "What a sync costs as
/// the group grows").
///
/// A live exchange heals any wrong belief (docs/sync-protocol.md, "Live connections heal"): each
/// heartbeat carries the digest of what its sender believes the peer holds; a peer whose
/// holdings (held or set aside) disagree with it, and that has room to take what it lacks,
/// answers with its whole holdings (`holds`). The believer takes them as the truth, unless it
/// sent a bundle after that heartbeat, and sends the delta above them.
public struct SyncSession: Sendable {
    /// How long the exchange lasts.
    public enum Mode: Sendable {
        /// One exchange of deltas both ways, then the connection closes.
        case oneShot
        /// The connection stays open and every change is pushed, until either side closes.
        case live
    }

    /// What the shell must do, in order.
    public enum Action: Equatable, Sendable {
        /// Send this message.
        case send(SyncMessage)
        /// Send a bundle of every op above `vector` (nothing when there is none).
        case sendDelta(above: VersionVector)
        /// A part of the peer's bundle: the engine assembles it (bounded) and ingests it when `final`.
        case receivePart([UInt8], final: Bool)
        /// Send `have` with the local vector (`have(reporting:)`): everything the peer sent is ingested.
        case acknowledge
        /// Close the connection: the exchange is complete.
        case finish
        /// Close the connection, and why.
        case fail(SyncFailure)
        /// Read what the store holds or holds aside, and hand it to `holdingsRead`: the peer's
        /// belief, whose digest a heartbeat carried, may be wrong.
        case readHoldings
    }

    /// Where the exchange stands; each stage holds what only it needs.
    enum State {
        /// Our hello is sent (`start`: the reconciliation of our vector), or not yet (nil); the
        /// peer's has not arrived.
        case greeting(Reconciliation?)
        /// Hellos exchanged; the two vectors are being reconciled.
        case reconciling(Reconciliation)
        /// Each side knows the other's vector: deltas flow.
        case exchanging(Exchange)
        case closed
    }

    /// How far the exchange of deltas has come, by the mode agreed.
    enum Exchange {
        /// One-shot: whether the peer's delta is complete (its `done` arrived), and whether the
        /// peer has ingested ours (its `have` arrived after our `done`). Finished once both did.
        case oneShot(peerDone: Bool, peerAcknowledged: Bool)
        /// Live: what the heartbeats' digests settled.
        case live(Belief)
    }

    /// Live: the peer's belief of what this side holds, as its heartbeats' digests tell it, and
    /// ours of what it holds, as ours tell it (docs/sync-protocol.md, "Live connections heal").
    struct Belief {
        /// A bundle went out after our last heartbeat with a digest, so a `holds` answering
        /// that heartbeat does not show it yet.
        var sentSinceDigest = true
        /// The digest the peer's latest heartbeat carried.
        var peer: UInt64?
        /// A belief the store's holdings were read for since the store last changed, and that
        /// called for nothing: they matched it, or they did not and the store had no room aside.
        /// Holdings and room change only with the store (an ingest is where a junk cap evicts; a
        /// release of held ops is a write too), so the same belief again needs no read: a peer
        /// that holds ops aside for its clock, which its `have`s never report, or whose junk
        /// tables stand at a cap, is not read at every heartbeat for as long as that lasts.
        var settled: UInt64?
        /// The settled belief was wrong, and the store had no room aside to take what it lacks.
        var awaitsRoomAside = false
    }

    /// What this side asked for; `mode` is what the two sides agreed on.
    public let requestedMode: Mode
    /// The mode the two sides agreed on: live only when both asked for it.
    public private(set) var mode: Mode
    private(set) var state: State = .greeting(nil)
    /// What the peer is known to hold: its hello, its `have`s, what we sent it.
    public private(set) var peerHolds = VersionVector() {
        didSet {
            peerHoldsDigest = nil
            peerHoldsRevision &+= 1
        }
    }
    /// Moves whenever `peerHolds` is set: a shell tells its listeners what the peer holds when
    /// this moved, without comparing vectors.
    public private(set) var peerHoldsRevision = 0
    /// `HoldingsDigest.of(peerHolds)`, kept until `peerHolds` changes: an idle live connection's
    /// heartbeats digest nothing anew (docs/performance.md, "A crowd").
    private var peerHoldsDigest: UInt64?
    /// What the peer itself said it holds: its hello with the changes of its `have`s applied.
    public private(set) var peerReported = VersionVector()
    /// What this side last said it holds (its hello with its `have`s' changes applied): a `have`
    /// carries the entries that differ from it.
    private var told = VersionVector() { didSet { toldDigest = nil } }
    /// `HoldingsDigest.of(told)`, kept until `told` changes.
    private var toldDigest: UInt64?

    /// Live: the settled belief was wrong, and the store had no room aside to take what it lacks.
    public var awaitsRoomAside: Bool {
        if case .exchanging(.live(let belief)) = state { belief.awaitsRoomAside } else { false }
    }

    /// The silence after which this side sends a heartbeat, as its hello says.
    public let heartbeatMilliseconds: UInt32
    /// The silence after which the peer sends a heartbeat, as its hello said (nil before it).
    public private(set) var peerHeartbeatMilliseconds: UInt32?

    /// A session that will ask for `mode` in its hello, and say it heartbeats after
    /// `heartbeatMilliseconds` of silence.
    public init(mode: Mode, heartbeatMilliseconds: UInt32 = 5_000) {
        self.requestedMode = mode
        self.mode = mode
        self.heartbeatMilliseconds = heartbeatMilliseconds
    }

    /// Whether `start` ran.
    var isStarted: Bool {
        if case .greeting(nil) = state { false } else { true }
    }

    /// The hello this side sent, until the vectors are reconciled.
    var helloOpening: SyncMessage? {
        switch state {
        case .greeting(let reconciliation?), .reconciling(let reconciliation): hello(of: reconciliation)
        case .greeting(nil), .exchanging, .closed: nil
        }
    }

    /// The hello of `reconciliation`'s vector.
    private func hello(of reconciliation: Reconciliation) -> SyncMessage {
        .hello(
            live: requestedMode == .live, heartbeatMilliseconds: heartbeatMilliseconds, fingerprint: reconciliation.wholeFingerprint,
            summaries: reconciliation.greeting)
    }

    /// Hellos exchanged and both sides stay connected: silence (with heartbeats) is normal.
    public var isLive: Bool {
        if case .exchanging(.live) = state { true } else { false }
    }

    /// The first message: the summaries of our vector.
    public mutating func start(localVector: VersionVector) -> [Action] {
        precondition(!isStarted, "a session starts once")
        told = localVector
        let reconciliation = Reconciliation(local: localVector)
        state = .greeting(reconciliation)
        return [.send(hello(of: reconciliation))]
    }

    /// The `have` that tells the peer this side holds `vector`: the entries that changed since
    /// what it last said.
    public mutating func have(reporting vector: VersionVector) -> SyncMessage {
        assert(isStarted, "a have follows our hello")
        defer { told = vector }
        return .have(vector.changes(since: told))
    }

    /// Takes the peer's next message and returns the actions it calls for, in order; a message out
    /// of protocol order returns `fail` with `SyncFailure.protocolViolation`. After a close, nothing.
    public mutating func receive(_ message: SyncMessage) -> [Action] {
        switch (message, state) {
        case (_, .closed):
            return []
        case (.hello(let live, let heartbeat, let fingerprint, let summaries), .greeting(var reconciliation?)):
            mode = requestedMode == .live && live ? .live : .oneShot
            peerHeartbeatMilliseconds = heartbeat
            let steps: [ReconcileStep]
            do { steps = try reconciliation.greeted(summaries, wholeFingerprint: fingerprint) } catch {
                return close(.reconciliationOutOfStep)
            }
            return reconciled(reconciliation, answering: steps)
        case (.hello, _):
            return close(.secondHello)
        case (.reconcile(let theirs), .reconciling(var reconciliation)):
            let steps: [ReconcileStep]
            do { steps = try reconciliation.receive(theirs) } catch { return close(.reconciliationOutOfStep) }
            return reconciled(reconciliation, answering: steps)
        case (.reconcile, _):
            return close(.reconcileOutOfTurn)
        case (.olderHello, _):
            state = .closed
            return [.fail(.olderPeer)]
        case (.bundlePart(let bytes, let final), .exchanging):
            return [.receivePart(bytes, final: final)]
        case (.bundlePart, _):
            return close(.bundleBeforeHello)
        case (.have(let changes), .exchanging(let exchange)):
            peerReported.apply(changes: changes)
            learnPeerHolds(peerReported)
            guard case .oneShot(let peerDone, _) = exchange else { return [] }
            state = .exchanging(.oneShot(peerDone: peerDone, peerAcknowledged: true))
            return finishIfComplete()
        case (.have, _):
            return close(.haveBeforeHello)
        case (.done, .exchanging(.oneShot(peerDone: false, let peerAcknowledged))):
            state = .exchanging(.oneShot(peerDone: true, peerAcknowledged: peerAcknowledged))
            return [.acknowledge] + finishIfComplete()
        case (.done, _):
            return close(.unexpectedDone)
        case (.bye(let reason), _):
            state = .closed
            return [.fail(.peerClosed(reason: reason))]
        case (.heartbeat, _):
            return []  // the engine tracks liveness
        case (.heartbeatWithDigest(let digest), .exchanging(.live(var belief))):
            belief.peer = digest
            state = .exchanging(.live(belief))
            // A belief equal to what this side last said needs no store read: the usual idle case;
            // nor does one already read for since the store last changed.
            guard digest != digestOfTold(), digest != belief.settled else { return [] }
            return [.readHoldings]
        case (.heartbeatWithDigest, _):
            return []
        case (.holds(let vector), .exchanging(.live(let belief))):
            // A bundle sent after the heartbeat this answers is not in it: the next heartbeat asks again.
            guard !belief.sentSinceDigest else { return [] }
            peerHolds = vector
            return [.sendDelta(above: vector)]
        case (.holds, _):
            return close(.unexpectedHolds)
        }
    }

    /// The heartbeat to send after a silence: live, it carries the digest of what the peer is
    /// believed to hold.
    public mutating func heartbeat() -> SyncMessage {
        assert(isStarted, "a heartbeat follows our hello")
        guard case .exchanging(.live(var belief)) = state else { return .heartbeat }
        belief.sentSinceDigest = false
        state = .exchanging(.live(belief))
        let digest = peerHoldsDigest ?? HoldingsDigest.of(peerHolds)
        peerHoldsDigest = digest
        return .heartbeatWithDigest(digest)
    }

    /// `HoldingsDigest.of(told)`, digested once per change of `told`.
    private mutating func digestOfTold() -> UInt64 {
        let digest = toldDigest ?? HoldingsDigest.of(told)
        toldDigest = digest
        return digest
    }

    /// The store's answer to `readHoldings`: when the peer's belief disagrees with it and the
    /// store has room aside, tell the peer the truth.
    public mutating func holdingsRead(_ holdings: Holdings) -> [Action] {
        assert(isStarted, "holdings are read for a heartbeat of the exchange")
        guard case .exchanging(.live(var belief)) = state, let peer = belief.peer else { return [] }
        guard HoldingsDigest.of(holdings.vector) != peer else {
            belief.settled = peer
            state = .exchanging(.live(belief))
            return []
        }
        guard holdings.hasRoomAside else {
            belief.settled = peer
            belief.awaitsRoomAside = true
            state = .exchanging(.live(belief))
            return []
        }
        return [.send(.holds(holdings.vector))]
    }

    /// The shell sent a delta that brings the peer up to `vector` (`bundles` of them).
    public mutating func deltaSent(upTo vector: VersionVector, bundles: Int = 1) {
        // Usually the delta brings the peer up to the store's vector: that vector is then taken
        // whole, so the connections of one `serve` share its storage, and comparing them (the
        // shared delta's key, a peer's lag) costs nothing (docs/performance.md, "A tournament").
        assert(bundles >= 0, "a count of bundles")
        if vector.covers(peerHolds) {
            peerHolds = vector
        } else {
            learnPeerHolds(vector)
        }
        if bundles > 0, case .exchanging(.live(var belief)) = state {
            belief.sentSinceDigest = true
            state = .exchanging(.live(belief))
        }
    }

    /// The shell ingested a bundle from the peer, which held `senderVector` when it sent it;
    /// live, `have` tells the peer this side holds `acknowledged` (the store's vector).
    public mutating func ingested(senderVector: VersionVector, acknowledged: VersionVector) -> [Action] {
        assert(isStarted, "bundles arrive after the hellos")
        storeChanged()
        learnPeerHolds(senderVector)
        return isLive ? [.send(have(reporting: acknowledged))] : []
    }

    /// The local store changed (a local op, or ops ingested from any peer): in live mode, send
    /// the peer what it lacks. This is how ops travel on to every other peer (relay).
    public mutating func localChanged(localVector: VersionVector) -> [Action] {
        storeChanged()
        guard isLive, !peerHolds.covers(localVector) else { return [] }
        return [.sendDelta(above: peerHolds)]
    }

    /// The peer holds at least `vector`: `peerHolds` is set (and its revision moves) only if
    /// that shows more.
    private mutating func learnPeerHolds(_ vector: VersionVector) {
        var holds = peerHolds
        if holds.formMaximum(vector) { peerHolds = holds }
    }

    /// What a read of the holdings settled no longer holds.
    private mutating func storeChanged() {
        guard case .exchanging(.live(var belief)) = state else { return }
        belief.settled = nil
        belief.awaitsRoomAside = false
        state = .exchanging(.live(belief))
    }

    /// Sends this side's next step of the reconciliation, if any; once it is complete, both
    /// vectors are known and the deltas start, as whole-vector hellos started them.
    private mutating func reconciled(_ reconciliation: Reconciliation, answering steps: [ReconcileStep]) -> [Action] {
        assert(isStarted, "reconciling follows our hello")
        var actions: [Action] = steps.map { .send(.reconcile($0)) }
        guard reconciliation.isComplete else {
            state = .reconciling(reconciliation)
            return actions
        }
        let vector = reconciliation.peerVector
        state = .exchanging(mode == .live ? .live(Belief()) : .oneShot(peerDone: false, peerAcknowledged: false))
        peerHolds = vector
        peerReported = vector
        actions.append(.sendDelta(above: vector))
        if mode == .oneShot { actions.append(.send(.done)) }
        return actions
    }

    /// One-shot: done once the peer's delta is in and the peer confirmed ours.
    private mutating func finishIfComplete() -> [Action] {
        guard case .exchanging(.oneShot(peerDone: true, peerAcknowledged: true)) = state else { return [] }
        state = .closed
        return [.finish]
    }

    private mutating func close(_ violation: SyncFailure.ProtocolViolation) -> [Action] {
        state = .closed
        return [.fail(.protocolViolation(violation))]
    }
}
