import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging
import Synchronization

/// An engine's running sync (`HyzerEngine.startSync(_:)`): listening, dialing, the shared folder,
/// and, for a device that holds an invitation, joining first. It runs until `stop()`, which
/// closes every connection, ends the folder loop and waits for them; `statuses()` follows it.
///
/// Everything `serve` does around a connection happens here, not in an app: a live finish is
/// signed for (receipts), a peer the newest rekey has not reached is dialed again with an older
/// group key, an unreachable peer is dialed again with backoff, and a device with an invitation
/// is admitted by the first member it reaches (over TCP, a link, or the folder) before it syncs.
public final class SyncController: Sendable {
    private let state = Mutex(State())
    private let replica: Replica
    private let plan: SyncPlan
    private let store: StoreQueue
    private let logger: Logger
    /// A new signal stream of the engine's change monitor, for each run after the first.
    private let subscribe: @Sendable () async throws -> AsyncStream<Void>
    /// Told once the sync stopped, so that the engine lets go of it.
    private let released: @Sendable (SyncController) -> Void

    /// Running, paused (`pause()`), or stopped for good (`stop()`).
    private enum Phase {
        case running, paused, stopped
    }

    private struct State {
        var phase = Phase.running
        var status = SyncStatus()
        var lags = PeerLags()
        var subscribers: [Int: AsyncStream<SyncStatus>.Continuation] = [:]
        var nextSubscriber = 0
        /// The task of the current run: joining when invited, then serving.
        var run: Task<Void, Never>?
        /// Where `accept(_:)` hands links to the current run's server.
        var accepted: AsyncStream<any ByteLink>.Continuation?
    }

    /// How many accepted links may wait for the server at once; `accept(_:)` refuses more.
    static let acceptedWaitingMax = 16

    init(
        replica: Replica, plan: SyncPlan, store: StoreQueue, logger: Logger,
        subscribe: @escaping @Sendable () async throws -> AsyncStream<Void>,
        released: @escaping @Sendable (SyncController) -> Void
    ) {
        self.replica = replica
        self.plan = plan
        self.store = store
        self.logger = logger
        self.subscribe = subscribe
        self.released = released
    }

    /// The status now, then each change, until the sync stops (the last status says `stopped`).
    /// Any number of tasks may follow it; a slow one sees the latest status, not every one.
    public func statuses() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream<SyncStatus>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> Int? in
            continuation.yield(state.status)
            guard !state.status.stopped else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// The status now.
    public var status: SyncStatus { state.withLock { $0.status } }

    /// Serves `link`, which a peer opened to this device over the app's own transport (a
    /// MultipeerConnectivity session, a WatchConnectivity channel, a connection an `NWListener`
    /// accepted), as an accepted connection: the handshake and the live session run over it
    /// until it ends, as for a peer that dialed in over TCP, and the link is closed then.
    /// Returns false while the sync is paused or stopped, or when `acceptedWaitingMax` links
    /// already wait for the server (a device still joining serves none yet): the app closes it.
    @discardableResult
    public func accept(_ link: any ByteLink) -> Bool {
        state.withLock { state in
            guard state.phase == .running, let accepted = state.accepted, case .enqueued = accepted.yield(link) else { return false }
            return true
        }
    }

    /// Pauses the sync, as an app does when it goes to the background: closes every connection,
    /// ends the folder loop and waits for both. Nothing is lost (every bundle is ingested whole
    /// or not at all, and what was ingested is committed); the status says `paused`, with no
    /// peer and no listener, until `resume()`. A paused or stopped sync stays as it is.
    public func pause() async {
        var running: Task<Void, Never>?
        update { state in
            guard state.phase == .running else { return }
            state.phase = .paused
            state.status.paused = true
            running = state.run
            state.run = nil
            state.accepted?.finish()
            state.accepted = nil
        }
        guard let running else { return }
        running.cancel()
        await running.value
        update { state in
            state.lags = PeerLags()
            state.status.listening = nil
        }
    }

    /// Resumes a paused sync: it listens, dials and syncs the folder again, as the plan says. A
    /// running or stopped sync stays as it is.
    public func resume() {
        update { state in
            guard state.phase == .paused else { return }
            state.phase = .running
            state.status.paused = false
            state.status.refused = []
            begin(&state, changes: nil)
        }
    }

    /// Closes every connection, ends the folder loop, waits for both, ends `statuses()`, and
    /// lets the engine forget the controller: a stopped sync does not start again.
    public func stop() async {
        let running = state.withLock { state -> Task<Void, Never>? in
            state.phase = .stopped
            state.accepted?.finish()
            state.accepted = nil
            defer { state.run = nil }
            return state.run
        }
        running?.cancel()
        await running?.value
        let subscribers = state.withLock { state -> [AsyncStream<SyncStatus>.Continuation] in
            guard !state.status.stopped else { return [] }
            state.status.stopped = true
            state.status.paused = false
            state.status.peers = []
            state.status.listening = nil
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.yield(status)
            subscriber.finish()
        }
        released(self)
    }

    /// Starts the first run; `changes` signals each change of the store (the engine's change
    /// monitor): the controller reads the store's vector once per change for every peer's lag.
    func start(changes: AsyncStream<Void>) {
        state.withLock { state in begin(&state, changes: changes) }
    }

    /// Starts a run (under the state's lock): joining when invited, then serving as the plan
    /// says, until paused or stopped. Without `changes`, the run subscribes to the monitor itself.
    private func begin(_ state: inout State, changes: AsyncStream<Void>?) {
        let (accepted, acceptor) = AsyncStream<any ByteLink>.makeStream(bufferingPolicy: .bufferingOldest(Self.acceptedWaitingMax))
        state.accepted = acceptor
        state.run = Task { [self] in
            do {
                let signals: AsyncStream<Void>
                if let changes {
                    signals = changes
                } else {
                    signals = try await subscribe()
                }
                await run(changes: signals, accepted: accepted)
            } catch {
                update { $0.status.lastFailure = .stopped("\(error)") }
            }
        }
    }

    /// One run: joining when invited, then serving as the plan says, until cancelled.
    private func run(changes: AsyncStream<Void>, accepted: AsyncStream<any ByteLink>) async {
        let (plan, store, logger) = (plan, store, logger)
        let follower = Task { [weak self] in await self?.follow(changes, store: store) }
        defer { follower.cancel() }
        guard await join(plan, store: store, logger: logger),
            let group = try? await store.run(.read, { [replica] in try replica.group() })
        else { return }
        var server = PeerServer(replica: replica, group: group, logger: logger)
        // Every peer, over TCP or a link, is dialed through an opener that dials seldom a peer
        // whose handshakes say it is of another group (`RefusalAwareOpener`).
        let openers: [(String, any ByteLinkOpener)] =
            plan.peers.map { ($0.description, TCPLink.Opener(address: $0)) } + plan.links.map { ("\($0)", $0) }
        server.links = openers.map { name, opener in
            RefusalAwareOpener(base: opener, name: name, replica: replica) { [weak self] refused in
                self?.update { state in
                    state.status.refused.removeAll { $0.peer == name && $0.refusal == .otherGroup }
                    if let refused { state.status.refused.append(refused) }
                }
            }
        }
        server.accepted = accepted
        server.folder = plan.sharedFolder
        server.folderInterval = plan.folderInterval
        if plan.folder == nil, plan.bucket != nil { server.folderJitter = plan.folderInterval / 5 }
        let (ended, progress) = (plan.connectionEnded, plan.connectionProgress)
        let names = openers.map(\.0)
        server.observer = { [weak self] outcome in
            ended(outcome)
            self?.connectionEnded(outcome, peers: names)
        }
        server.progress = { [weak self] event in
            progress(event)
            self?.progressed(event)
        }
        server.folderObserver = { [weak self] result in self?.folderSynced(result) }
        Self.configureDiscovery(&server, plan) { [weak self] found in self?.update { $0.status.discovered = found } }
        do {
            if let listen = plan.listen {
                try await server.run(listeningOn: listen) { [weak self] port in
                    self?.update { $0.status.listening = PeerAddress(host: listen.host, port: port) }
                }
            } else {
                try await server.run()
            }
        } catch {
            guard !Task.isCancelled else { return }
            update { $0.status.lastFailure = .stopped("\(error)") }
        }
    }

    /// What `plan` says of the LAN: advertise a listener that is not on loopback, and discover.
    private static func configureDiscovery(
        _ server: inout PeerServer, _ plan: SyncPlan, found: @escaping @Sendable ([PeerAddress]) -> Void
    ) {
        server.advertises = plan.advertise && plan.listen.map { !$0.isLoopback } == true
        server.discovers = plan.discover
        guard server.advertises || server.discovers else { return }
        server.discovery = plan.discovery ?? DNSServiceDiscovery()
        server.discoveryObserver = found
    }

    /// Asks to be admitted while this device holds an invitation and no group, through every
    /// peer, link and the folder in turn, every `folderInterval`; true once in a group.
    private func join(_ plan: SyncPlan, store: StoreQueue, logger: Logger) async -> Bool {
        let replica = replica
        let named: [any ByteLinkOpener] = plan.peers.map { TCPLink.Opener(address: $0) } + plan.links
        var (scan, scanTried): (DiscoveryScan?, Bool) = (nil, false)
        defer { scan?.stop() }
        while !Task.isCancelled {
            guard let inGroup = try? await store.run(.read, { try replica.group() != nil }) else { return false }
            if inGroup {
                update { $0.status.joining = false }
                return true
            }
            update { $0.status.joining = true }
            // With discovery, members on the LAN that advertise the invitation's join tag too.
            if plan.discover, !scanTried { (scan, scanTried) = (Self.scan(plan, logger: logger), true) }
            let invitation = try? await store.run(.read, { try replica.pendingInvitation() })
            let found = invitation.flatMap { invitation in scan?.admitting(invitation) } ?? []
            let openers = named + found.map { TCPLink.Opener(address: $0) }
            let peer = PeerSync(replica: replica, logger: logger)
            for opener in openers {
                do {
                    if try await peer.join(opener) != nil { break }
                } catch let error as PeerSyncError {
                    update { $0.status.lastFailure = .join(error) }
                } catch {
                    // Unreachable now: tried again at the next turn.
                }
            }
            if let folder = plan.sharedFolder {
                let answer = try? await store.run(.write) { try FolderJoin(replica: replica, folder: folder).ask() }
                if case .refused(let refusal)? = answer { update { $0.status.lastFailure = .join(.joinRefused(refusal)) } }
            }
            if (try? await store.run(.read, { try replica.group() != nil })) == true { continue }
            // A member found on the LAN is asked within a second of its announcement.
            try? await Task.sleep(for: scan == nil ? plan.folderInterval : min(plan.folderInterval, .seconds(1)))
        }
        return false
    }

    /// A browse for the members that admit this device; nil, after one warning, when the
    /// responder cannot be reached.
    private static func scan(_ plan: SyncPlan, logger: Logger) -> DiscoveryScan? {
        do throws(DiscoveryError) {
            return try DiscoveryScan(plan.discovery ?? DNSServiceDiscovery())
        } catch {
            logger.warning("discovery is off: \(error); asking the named peers only")
            return nil
        }
    }

    /// Reads the store's vector now and after each change `changes` signals (a burst of commits
    /// is one signal), until the sync stops: one read per change, however many peers are
    /// connected (docs/performance.md, "A tournament").
    private func follow(_ changes: AsyncStream<Void>, store: StoreQueue) async {
        await readVector(store)
        for await _ in changes { await readVector(store) }
    }

    private func readVector(_ store: StoreQueue) async {
        guard let vector = try? await store.run(.read, { [replica] in try replica.versionVector() }) else { return }
        update { $0.lags.storeRead(vector) }
    }

    /// `peers`: the plan's peers, each of which the sync stops dialing once a member showed this
    /// device's removal (so does the server: `PeerDialer.keepConnected`).
    private func connectionEnded(_ outcome: ConnectionOutcome, peers: [String]) {
        update { state in
            if outcome.failure == .removedFromGroup {
                state.status.refused = peers.map { RefusedPeer(peer: $0, refusal: .removedFromGroup) }
            }
            if let failure = outcome.failure {
                state.status.lastFailure = .connection(peer: outcome.peer.flatMap(AuthorID.init(hex:)), failure)
            } else if case .connection? = state.status.lastFailure {
                state.status.lastFailure = nil
            }
        }
    }

    private func progressed(_ progress: ConnectionProgress) {
        update { state in
            state.lags.record(progress)
            if case .opened = progress, case .connection? = state.status.lastFailure { state.status.lastFailure = nil }
        }
    }

    private func folderSynced(_ result: Result<FolderSyncReport, any Error>) {
        update { state in
            switch result {
            case .success:
                if case .folder? = state.status.lastFailure { state.status.lastFailure = nil }
            case .failure(let error):
                state.status.lastFailure = .folder("\(error)")
            }
        }
    }

    /// Changes the state (`PeerLags` keeps every peer's lag up to date without a store read),
    /// and tells every follower when the status changed.
    private func update(_ change: (inout State) -> Void) {
        let (status, subscribers) = state.withLock { state -> (SyncStatus?, [AsyncStream<SyncStatus>.Continuation]) in
            guard !state.status.stopped else { return (nil, []) }
            let before = state.status
            change(&state)
            state.status.peers = state.lags.peers
            return state.status == before ? (nil, []) : (state.status, Array(state.subscribers.values))
        }
        guard let status else { return }
        for subscriber in subscribers { subscriber.yield(status) }
    }
}
