import Foundation
import GRDB
import HyzerKit
import HyzerTestSupport
import Synchronization
import Testing

@testable import HyzerEngine

/// The engine's store calls wait on threads of their own: while another process holds the
/// store's write lock, the calls waiting for it leave the cooperative pool to every other task.
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

    @Test func callsWaitingForTheWriteLockLeaveTheCooperativePoolFree() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone")
        let holder = try LockHolder(store: engine.directory)
        await holder.hold()
        // More waiting writes than the pool has threads (one per core).
        let count = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let done = Finished()
        let writes = (0..<count).map { index in
            Task {
                let player = try await engine.addPlayer(named: "Player \(index)")
                done.count.add(1, ordering: .relaxed)
                return player
            }
        }
        // A heartbeat on the pool: 10 ms sleeps for one second. Were the writes waiting on the
        // pool's threads, it would not beat until the lock is released.
        var beats = 0
        let end = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
            beats += 1
        }
        print("heartbeats while \(count) writes waited for the lock: \(beats)")
        #expect(done.count.load(ordering: .relaxed) == 0, "the writes waited for the lock")
        #expect(beats >= 10)
        holder.release()
        var players: Set<PlayerID> = []
        for write in writes { players.insert(try await write.value) }
        #expect(players.count == count)
        try await engine.close()
    }
}
