import Foundation
import HyzerKit

/// Ticks (the engines' clock) and "the store changed", fanned out to every connection of a
/// process. Each connection's mailbox holds at most one pending signal of each kind, and
/// delivering one needs no task of the connection's own: a burst of commits costs one delta,
/// a busy connection does not pile up ticks, and an idle connection costs no timer. A tick
/// reaches only the mailboxes whose connection has something due by then (`Mailbox.tickDue`):
/// an idle live connection wakes for its heartbeat, not four times a second.
public final class ConnectionSignals: DeltaSharing, @unchecked Sendable {
    // @unchecked: `mailboxes` and `nextID` are only touched under `lock`.
    /// What a connection is told.
    public enum Signal: Sendable, Hashable {
        /// Time passed: check timeouts and send a heartbeat when one is due.
        case tick
        /// The store changed: send a live peer what it lacks.
        case storeChanged
    }

    /// When a mailbox takes ticks.
    enum TickDue: Sendable {
        /// Every tick (a connection before it said when).
        case every
        /// Ticks from this instant on.
        case at(ContinuousClock.Instant)
        /// None: the subscriber has no clock to keep.
        case never
    }

    /// One connection's mailbox: `deliver` receives a signal and what to call once it is handled.
    final class Mailbox: @unchecked Sendable {
        // @unchecked: `pending`, `due` and `writeDeadline` are only touched under `lock`.
        let id: Int
        private let deliver: @Sendable (Signal, @escaping @Sendable () -> Void) -> Void
        private let lock = NSLock()
        private var pending: Set<Signal> = []
        private var due: TickDue
        /// The deadline of a write in progress (`WriteWatch`): a tick is due then too.
        private var writeDeadline: ContinuousClock.Instant?

        init(id: Int, ticks: TickDue, _ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) {
            self.id = id
            self.due = ticks
            self.deliver = deliver
        }

        /// From when on the subscriber takes ticks: its next deadline.
        func tickDue(_ due: TickDue) {
            lock.withLock { self.due = due }
        }

        /// A write in progress must be accepted by `deadline` (nil: none in progress).
        func writeDue(_ deadline: ContinuousClock.Instant?) {
            lock.withLock { writeDeadline = deadline }
        }

        /// Delivers `signal` unless one of its kind is pending, or it is a tick before the mailbox's due time.
        func post(_ signal: Signal, now: ContinuousClock.Instant) {
            let posts = lock.withLock { () -> Bool in
                if signal == .tick, !(writeDeadline.map { $0 <= now } ?? false) {
                    switch due {
                    case .every: break
                    case .at(let instant): guard instant <= now else { return false }
                    case .never: return false
                    }
                }
                return pending.insert(signal).inserted
            }
            guard posts else { return }
            deliver(signal) { [self] in _ = lock.withLock { pending.remove(signal) } }
        }
    }

    private let lock = NSLock()
    private var mailboxes: [Int: Mailbox] = [:] { didSet { everyMailbox = nil } }
    /// `mailboxes`' values, made once per subscription's change: a tick to a crowd shares this
    /// array rather than copying a thousand references four times a second.
    private var everyMailbox: [Mailbox]?
    private var nextID = 0
    /// A member showed the organizer's removal of this device (`SyncFailure.removedFromGroup`).
    private var removed = false
    /// Store changes published so far, and the store's vector read after the latest of them
    /// (`vectorAfterLatestChange`).
    private var changes = 0
    private var latestVector: (change: Int, vector: VersionVector)?
    /// Deltas read after the latest change, by what they were read above (`deltaAfterLatestChange`).
    private var latestDeltas: (change: Int, byRequest: [DeltaRequest: Delta]) = (-1, [:])
    /// What the peers of the latest delta shared will ask for at the next change: the ops above
    /// the vector it brought them up to (`watch(_:)` reads that delta as the writer commits).
    private var nextRequest: DeltaRequest?
    /// The delta the writer read for the change it published last, and whether a connection took
    /// it; the commits to let pass before the writer reads one again, and how many the next
    /// untaken one lets pass (`prepare(after:)`).
    private var prepared: (change: Int, request: DeltaRequest, taken: Bool)?
    private var preparedSkips = 0
    private var preparedBackoff = 1
    /// The ticker, asleep while no connection is subscribed.
    private var idleTicker: CheckedContinuation<Void, Never>?

    /// Told what each connection does: opened (the peer proved who it is), what its peer holds
    /// now, closed. Metrics listen here (`serve --http`'s peers connected and lag).
    public let progress: @Sendable (ConnectionProgress) -> Void

    /// The store failures of every connection: a busy store is logged once, not per connection.
    let storeFailures = RepeatedNotice()

    /// Signals with no connection yet; `progress` is told what each connection does.
    public init(progress: @escaping @Sendable (ConnectionProgress) -> Void = { _ in }) {
        self.progress = progress
    }

    /// Whether a member showed this process the organizer's removal of its device: every dialer
    /// of the process stops (`PeerDialer.keepConnected`), since every peer of the group would
    /// refuse it alike.
    public var removedFromGroup: Bool { lock.withLock { removed } }

    /// Says that a member showed the organizer's removal of this device.
    func removedFromGroupShown() {
        lock.withLock { removed = true }
    }

    /// Registers a connection, taking `ticks` until it says otherwise; `deliver` must hand the
    /// signal on without waiting.
    func subscribe(ticks: TickDue = .every, _ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) -> Mailbox {
        let (mailbox, ticker) = lock.withLock { () -> (Mailbox, CheckedContinuation<Void, Never>?) in
            nextID += 1
            let mailbox = Mailbox(id: nextID, ticks: ticks, deliver)
            mailboxes[nextID] = mailbox
            defer { idleTicker = nil }
            return (mailbox, idleTicker)
        }
        ticker?.resume()
        return mailbox
    }

    func unsubscribe(_ mailbox: Mailbox) {
        _ = lock.withLock { mailboxes.removeValue(forKey: mailbox.id) }
    }

    /// Hands `signal` to every connection's mailbox, without waiting; a signal of a kind a mailbox
    /// already holds is dropped (one pending of each kind is enough). Safe from any thread.
    public func publish(_ signal: Signal) {
        publish(signal, prepared: nil)
    }

    /// `publish(_:)`, with a delta read for the change it publishes (`watch(_:)`): the change and
    /// its delta become visible together.
    private func publish(_ signal: Signal, prepared: (request: DeltaRequest, delta: Delta)?) {
        let mailboxes = lock.withLock {
            if signal == .storeChanged {
                changes += 1
                if let prepared {
                    latestDeltas = (changes, [prepared.request: prepared.delta])
                    nextRequest = prepared.request.next(prepared.delta)
                    self.prepared = (changes, prepared.request, false)
                }
            }
            let every = everyMailbox ?? Array(self.mailboxes.values)
            everyMailbox = every
            return every
        }
        let now = ContinuousClock.now
        for mailbox in mailboxes { mailbox.post(signal, now: now) }
    }

    /// How many store changes were published so far: what changed since a reader last looked.
    var changesPublished: Int { lock.withLock { changes } }

    /// The store's vector for a connection handling "the store changed": `read` runs for the
    /// first connection that asks after a change is published, and the others share its answer,
    /// so a push to n peers reads the vector once, not n times (docs/performance.md, "A
    /// tournament"). A vector read after a change was published holds that change.
    public func vectorAfterLatestChange(_ read: () throws -> VersionVector) rethrows -> VersionVector {
        let change = lock.withLock { changes }
        if let latest = lock.withLock({ latestVector }), latest.change >= change { return latest.vector }
        let vector = try read()
        lock.withLock { if (latestVector?.change ?? -1) < change { latestVector = (change, vector) } }
        return vector
    }

    /// Deltas kept for the latest change: at most this many, of at most `sharedDeltaBytesMax` each.
    static let sharedDeltasMax = 16
    static let sharedDeltaBytesMax = 256 * 1024

    /// The delta for a connection handling "the store changed": the connections whose peers
    /// hold the same thing share one read and one encoding, so one score pushed to 150 phones
    /// is read and encoded once, not 150 times (docs/performance.md, "A tournament"). A delta read
    /// after a change was published holds that change, as `vectorAfterLatestChange`'s vector
    /// does; a newer change is read afresh.
    public func deltaAfterLatestChange(_ request: DeltaRequest, _ read: () throws -> Delta) rethrows -> Delta {
        if let shared = sharedDelta(request) { return shared }
        let change = lock.withLock { changes }
        let delta = try read()
        let bytes = delta.bundles.reduce(0) { $0 + $1.count }
        lock.withLock {
            if latestDeltas.change < change { latestDeltas = (change, [:]) }
            guard latestDeltas.change == change, latestDeltas.byRequest.count < Self.sharedDeltasMax, bytes <= Self.sharedDeltaBytesMax
            else { return }
            latestDeltas.byRequest[request] = delta
            nextRequest = request.next(delta)
        }
        return delta
    }

    /// The delta for `request` kept for the latest change (read by a connection, or by the writer
    /// as it committed: `watch(_:)`), reading nothing; a delta the writer read is then marked
    /// taken.
    public func sharedDelta(_ request: DeltaRequest) -> Delta? {
        lock.withLock {
            guard latestDeltas.change == changes, let delta = latestDeltas.byRequest[request] else { return nil }
            if prepared?.change == changes, prepared?.request == request { prepared?.taken = true }
            return delta
        }
    }

    /// The most commits the writer lets pass, reading no delta, after one it read was not taken.
    static let preparedBackoffMax = 32

    /// At most this many ops are read on the writer's thread for the next change (`watch(_:)`).
    static let preparedOpsMax: UInt64 = 256

    /// Publishes a tick every `interval` while some connection is subscribed, until cancelled.
    /// With no connection it sleeps without a timer: an idle `serve` never wakes for it.
    public func tick(every interval: Duration = .milliseconds(250)) async {
        while !Task.isCancelled {
            await waitForSubscriber()
            try? await Task.sleep(for: interval)
            publish(.tick)
        }
    }

    /// Returns once some connection is subscribed (at once if one is), or the task is cancelled.
    private func waitForSubscriber() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = lock.withLock { () -> Bool in
                    guard mailboxes.isEmpty, !Task.isCancelled else { return false }
                    idleTicker = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { () -> CheckedContinuation<Void, Never>? in
                defer { idleTicker = nil }
                return idleTicker
            }?.resume()
        }
    }

    /// "The store changed" as a stream, for a reader beside the connections (the web's live
    /// pages): at most one signal waits, so a burst of commits costs one wake-up.
    public func storeChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let mailbox = subscribe(ticks: .never) { signal, done in
            if signal == .storeChanged { continuation.yield() }
            done()
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(mailbox) }
        return stream
    }

    /// Publishes each change `monitor` reports (commits of this process and of others, noticed
    /// without polling: docs/sync-protocol.md), until cancelled. A commit of this process's writer
    /// is published on the writer's thread straight after it, with the delta the connections'
    /// peers will ask for read there first, while its pages are still in the writer's cache: the
    /// connections whose peers held the store's vector as it was share it and read nothing
    /// (docs/performance.md, "Live changes").
    public func watch(_ monitor: StoreChangeMonitor) async {
        await monitor.report { [self] commit in
            publish(.storeChanged, prepared: commit.flatMap(prepare(after:)))
        }
    }

    /// The delta above what the latest delta shared brought its peers up to, read after `commit`;
    /// nil when no connection is subscribed, none shared a delta yet, or the read gives up
    /// (`Replica.deltaRead(above:segmentBytesMax:opsMax:after:)`). A read no connection took
    /// makes the writer let the next commits pass without one, twice as many each time (up to
    /// `preparedBackoffMax`): a device whose peer already holds what it commits (a phone whose
    /// one peer sent it the ops) soon stops reading for nobody.
    private func prepare(after commit: WriterCommit) -> (request: DeltaRequest, delta: Delta)? {
        let request = lock.withLock { () -> DeltaRequest? in
            if let last = prepared {
                prepared = nil
                if last.taken {
                    preparedBackoff = 1
                } else {
                    preparedSkips = preparedBackoff
                    preparedBackoff = min(preparedBackoff * 2, Self.preparedBackoffMax)
                }
            }
            guard preparedSkips == 0 else {
                preparedSkips -= 1
                return nil
            }
            return mailboxes.isEmpty ? nil : nextRequest
        }
        guard let request,
            let delta = try? commit.replica.deltaBundles(
                above: request.above, group: request.group, bytesMax: request.bytesMax, opsMax: Self.preparedOpsMax, after: commit),
            delta.bundles.reduce(0, { $0 + $1.count }) <= Self.sharedDeltaBytesMax
        else { return nil }
        return (request, delta)
    }
}
