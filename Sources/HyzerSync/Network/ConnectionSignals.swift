import Foundation
import HyzerKit

/// Ticks (the engines' clock) and "the store changed", fanned out to every connection of a
/// process. Each connection's mailbox holds at most one pending signal of each kind, and
/// delivering one needs no task of the connection's own: a burst of commits costs one delta,
/// a busy connection does not pile up ticks, and an idle connection costs no timer.
public final class ConnectionSignals: DeltaSharing, @unchecked Sendable {
    // @unchecked: `mailboxes` and `nextID` are only touched under `lock`.
    /// What a connection is told.
    public enum Signal: Sendable, Hashable {
        /// Time passed: check timeouts and send a heartbeat when one is due.
        case tick
        /// The store changed: send a live peer what it lacks.
        case storeChanged
    }

    /// One connection's mailbox: `deliver` receives a signal and what to call once it is handled.
    final class Mailbox: @unchecked Sendable {
        // @unchecked: `pending` is only touched under `lock`.
        private let deliver: @Sendable (Signal, @escaping @Sendable () -> Void) -> Void
        private let lock = NSLock()
        private var pending: Set<Signal> = []

        init(_ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) {
            self.deliver = deliver
        }

        func post(_ signal: Signal) {
            guard lock.withLock({ pending.insert(signal).inserted }) else { return }
            deliver(signal) { [self] in _ = lock.withLock { pending.remove(signal) } }
        }
    }

    private let lock = NSLock()
    private var mailboxes: [Int: Mailbox] = [:]
    private var nextID = 0
    /// Store changes published so far, and the store's vector read after the latest of them
    /// (`vectorAfterLatestChange`).
    private var changes = 0
    private var latestVector: (change: Int, vector: VersionVector)?
    /// Deltas read after the latest change, by what they were read above (`deltaAfterLatestChange`).
    private var latestDeltas: (change: Int, byRequest: [DeltaRequest: Delta]) = (-1, [:])
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

    /// Registers a connection; `deliver` must hand the signal on without waiting.
    func subscribe(_ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) -> Int {
        let (id, ticker) = lock.withLock { () -> (Int, CheckedContinuation<Void, Never>?) in
            nextID += 1
            mailboxes[nextID] = Mailbox(deliver)
            defer { idleTicker = nil }
            return (nextID, idleTicker)
        }
        ticker?.resume()
        return id
    }

    func unsubscribe(_ id: Int) {
        _ = lock.withLock { mailboxes.removeValue(forKey: id) }
    }

    /// Hands `signal` to every connection's mailbox, without waiting; a signal of a kind a mailbox
    /// already holds is dropped (one pending of each kind is enough). Safe from any thread.
    public func publish(_ signal: Signal) {
        let mailboxes = lock.withLock {
            if signal == .storeChanged { changes += 1 }
            return Array(self.mailboxes.values)
        }
        for mailbox in mailboxes { mailbox.post(signal) }
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
    /// hold the same thing share one read and one signature, so one score pushed to 150 phones
    /// is read and signed once, not 150 times (docs/performance.md, "A tournament"). A delta read
    /// after a change was published holds that change, as `vectorAfterLatestChange`'s vector
    /// does; a newer change is read afresh.
    public func deltaAfterLatestChange(_ request: DeltaRequest, _ read: () throws -> Delta) rethrows -> Delta {
        let change = lock.withLock { changes }
        if let shared = lock.withLock({ latestDeltas.change == change ? latestDeltas.byRequest[request] : nil }) { return shared }
        let delta = try read()
        let bytes = delta.bundles.reduce(0) { $0 + $1.count }
        lock.withLock {
            if latestDeltas.change < change { latestDeltas = (change, [:]) }
            guard latestDeltas.change == change, latestDeltas.byRequest.count < Self.sharedDeltasMax, bytes <= Self.sharedDeltaBytesMax
            else { return }
            latestDeltas.byRequest[request] = delta
        }
        return delta
    }

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
        let id = subscribe { signal, done in
            if signal == .storeChanged { continuation.yield() }
            done()
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// Publishes each change `monitor` reports (commits of this process and of others, noticed
    /// without polling: docs/sync-protocol.md), until cancelled.
    public func watch(_ monitor: StoreChangeMonitor) async {
        for await _ in monitor.changes() { publish(.storeChanged) }
    }
}
