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
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let replica: Replica

    private struct State {
        var status = SyncStatus()
        var lags = PeerLags()
        var subscribers: [Int: AsyncStream<SyncStatus>.Continuation] = [:]
        var nextSubscriber = 0
    }

    init(replica: Replica) {
        self.replica = replica
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

    /// Closes every connection, ends the folder loop, waits for both, and ends `statuses()`.
    public func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        let subscribers = state.withLock { state in
            state.status.stopped = true
            state.status.peers = []
            defer { state.subscribers = [:] }
            return (state.status, Array(state.subscribers.values))
        }
        for subscriber in subscribers.1 {
            subscriber.yield(subscribers.0)
            subscriber.finish()
        }
    }

    /// Starts the sync's task: joining when invited, then serving as `plan` says. `changes`
    /// signals each change of the store (the engine's change monitor): the controller reads
    /// the store's vector once per change for every peer's lag.
    func start(_ plan: SyncPlan, changes: AsyncStream<Void>, store: StoreQueue, logger: Logger) {
        let running = Task { [self] in
            let follower = Task { [weak self] in await self?.follow(changes, store: store) }
            defer { follower.cancel() }
            guard await join(plan, store: store, logger: logger),
                let group = try? await store.run(.read, { [replica] in try replica.group() })
            else { return }
            var server = PeerServer(replica: replica, group: group, logger: logger)
            server.peers = plan.peers
            server.links = plan.links
            server.folder = plan.sharedFolder
            server.folderInterval = plan.folderInterval
            if plan.folder == nil, plan.bucket != nil { server.folderJitter = plan.folderInterval / 5 }
            let (ended, progress) = (plan.connectionEnded, plan.connectionProgress)
            server.observer = { [weak self] outcome in
                ended(outcome)
                self?.connectionEnded(outcome)
            }
            server.progress = { [weak self] event in
                progress(event)
                self?.progressed(event)
            }
            server.folderObserver = { [weak self] result in self?.folderSynced(result) }
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
        task.withLock { $0 = running }
    }

    /// Asks to be admitted while this device holds an invitation and no group, through every
    /// peer, link and the folder in turn, every `folderInterval`; true once in a group.
    private func join(_ plan: SyncPlan, store: StoreQueue, logger: Logger) async -> Bool {
        let replica = replica
        let openers: [any ByteLinkOpener] = plan.peers.map { TCPLink.Opener(address: $0) } + plan.links
        while !Task.isCancelled {
            guard let inGroup = try? await store.run(.read, { try replica.group() != nil }) else { return false }
            if inGroup {
                update { $0.status.joining = false }
                return true
            }
            update { $0.status.joining = true }
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
            try? await Task.sleep(for: plan.folderInterval)
        }
        return false
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

    private func connectionEnded(_ outcome: ConnectionOutcome) {
        update { state in
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
