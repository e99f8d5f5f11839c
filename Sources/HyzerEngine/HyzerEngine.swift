import Foundation
import HyzerDomain
import HyzerKit

/// A replica an app embeds: one store directory, its commands with typed ids, live queries,
/// and its group (docs/embedding.md).
///
/// Every method is `async` and suspends its caller rather than blocking it: the store's calls,
/// which may wait up to 5 s for another process's write lock, run on threads of the engine's
/// own dispatch queue (`StoreQueue`), never on the caller's executor or the cooperative pool.
/// Any number of tasks may call one engine at once; SQLite serialises the writes and every read
/// sees a consistent snapshot. Other processes (the `hyzer-peer` command line, `serve`) may use
/// the same store at the same time, and `observe(_:)` sees their commits as well as this
/// engine's.
public actor HyzerEngine {
    /// The store directory.
    public nonisolated let directory: URL
    /// This device's id in the group: its Ed25519 public key.
    public nonisolated let device: DeviceID
    let replica: Replica
    let store: StoreQueue
    let hub = ChangeHub()
    /// The syncs started, stopped by `close()`.
    var syncs: [SyncController] = []
    private var isClosed = false

    private init(replica: Replica, store: StoreQueue) {
        self.replica = replica
        self.store = store
        directory = replica.directory
        device = replica.author
    }

    deinit {
        hub.stop()
    }

    /// Opens the store in `directory`, made earlier by `create(at:deviceName:kind:owner:)` or
    /// `hyzer-peer init`. Throws `ReplicaError.notAStore` when there is none.
    public static func open(at directory: URL) async throws -> HyzerEngine {
        let store = StoreQueue(label: "hyzer.engine.store")
        let replica = try await store.run(.write) { try Replica.open(at: directory) }
        return HyzerEngine(replica: replica, store: store)
    }

    /// Creates a store in `directory` (mode 0700) as `hyzer-peer init` does: this device's key
    /// pair, the database with the seeded courses, the device's record under `deviceName` and
    /// `kind`, and, when `owner` is given, the player this device belongs to (the organizer of
    /// the rounds it starts). Throws `ReplicaError.storeExists` when `directory` holds a store.
    public static func create(
        at directory: URL, deviceName: String, kind: DeviceKind = .phone, owner: String? = nil
    ) async throws -> HyzerEngine {
        let store = StoreQueue(label: "hyzer.engine.store")
        let replica = try await store.run(.write) { try Replica.create(at: directory, name: deviceName, kind: kind, owner: owner) }
        return HyzerEngine(replica: replica, store: store)
    }

    /// Continues the store in `directory` under a new device key, as `hyzer-peer device
    /// continue` does, and opens it: for a store restored from a backup or copied, whose old key
    /// another copy may still write with. The new device succeeds the old one (it owns what the
    /// old one owned, organizer rights included) and the old key never writes again
    /// (docs/security.md, "Re-keying"). Returns the engine under the new key (its `device`) and
    /// the old key. Open no other engine on the store while it runs. Throws
    /// `ReplicaError.removedFromGroup` for a device the organizer removed.
    public static func continueUnderNewKey(at directory: URL) async throws -> (engine: HyzerEngine, predecessor: DeviceID) {
        let store = StoreQueue(label: "hyzer.engine.store")
        let (replica, predecessor) = try await store.run(.write) {
            let old = try Replica.open(at: directory)
            return (try old.continueUnderNewKey(), old.author)
        }
        return (HyzerEngine(replica: replica, store: store), predecessor)
    }

    /// Stops every sync, ends every observation, waits for the store calls under way and closes
    /// the database. Every later call throws `EngineError.closed`.
    public func close() async throws {
        guard !isClosed else { return }
        isClosed = true
        for sync in syncs { await sync.stop() }
        syncs = []
        hub.stop()
        let replica = replica
        try await store.runAlone { try replica.close() }
    }

    /// This device: its id, name, kind and owning player.
    public func identity() async throws -> ReplicaIdentity {
        try await perform(.read) { try $0.identity() }
    }

    /// The player this device belongs to, if it has one.
    public func owner() async throws -> PlayerID? {
        try await perform(.read) { try $0.identity().owner.map { PlayerID($0.id) } }
    }

    /// Runs `body` with the replica on the store queue for `access`, unless the engine is closed.
    func perform<T: Sendable>(_ access: StoreQueue.Access, _ body: @escaping @Sendable (Replica) throws -> T) async throws -> T {
        guard !isClosed else { throw EngineError.closed }
        let replica = replica
        return try await store.run(access) { try body(replica) }
    }

    /// Throws `EngineError.closed` once the engine is closed.
    func requireOpen() throws {
        guard !isClosed else { throw EngineError.closed }
    }

    /// A new signal stream of the shared change monitor (see `ChangeHub`).
    func subscribe() async throws -> AsyncStream<Void> {
        let hub = hub
        return try await perform(.read) { try hub.subscribe($0) }
    }

    /// How many observations are listening to the store now.
    nonisolated var observerCount: Int { hub.observerCount }
}
