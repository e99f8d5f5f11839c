import Foundation
import GRDB
import HyzerKit
import HyzerTestSupport
import Synchronization
import Testing

@testable import HyzerEngine

/// The engine's store calls wait on threads of their own: while another connection holds the
/// store's write lock, the writes waiting for it hold neither the engine nor the cooperative
/// pool, and reads go on.
@Suite struct StoreQueueTests {
    let directory = TemporaryDirectory("engine-queue")

    /// Holds the store's write lock on a thread of its own, as another process's long
    /// transaction would, from `hold()` until `release()`.
    final class LockHolder: Sendable {
        private let held = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let pool: DatabasePool

        init(store: URL) throws {
            pool = try DatabasePool(path: store.appendingPathComponent(Replica.databaseFileName).path)
        }

        func hold() async {
            let pool = pool
            let held = held
            let released = released
            Thread {
                try? pool.writeWithoutTransaction { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    held.signal()
                    released.wait()
                    try db.execute(sql: "ROLLBACK")
                }
            }.start()
            await withCheckedContinuation { continuation in
                Thread {
                    held.wait()
                    continuation.resume()
                }.start()
            }
        }

        func release() { released.signal() }
    }

    /// How many writes have returned.
    final class Finished: Sendable {
        let count = Atomic<Int>(0)
    }

    /// On the old design (the store's calls run on the engine's executor, in the cooperative
    /// pool) the first waiting write holds the engine for the whole busy wait, 5 s, and fails:
    /// no read returns before it.
    @Test func readsReturnWhileWritesWaitForAnotherConnectionsLock() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone")
        let holder = try LockHolder(store: engine.directory)
        await holder.hold()
        // More waiting writes than the pool has threads (one per core).
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let finished = Finished()
        let writes = (0..<count).map { index in
            Task {
                defer { finished.count.add(1, ordering: .relaxed) }
                return try await engine.addPlayer(named: "Player \(index)")
            }
        }
        // Time for the writes to reach the engine and wait for the lock.
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        #expect(try await engine.read(.status).players == 0)
        #expect(try await engine.players(named: "Player 0").isEmpty)
        print("2 reads while \(count) writes waited for the lock: \(ContinuousClock.now - started)")
        #expect(finished.count.load(ordering: .relaxed) == 0, "every read returned while the writes waited")
        holder.release()
        var players: Set<PlayerID> = []
        for write in writes { players.insert(try await write.value) }
        #expect(players.count == count)
        #expect(try await engine.read(.status).players == count)
        try await engine.close()
    }
}
