import Foundation
import HyzerKit
import Synchronization
import Testing

/// `StoreChangeMonitor`: this replica's commits and another connection's commits are reported
/// (through the transaction observer and through inotify), reads are not, and the stream ends
/// when its consumer is cancelled.
@Suite struct StoreChangeMonitorTests {
    /// Counts the changes a monitor reports, on a task of its own.
    final class Counter: Sendable {
        private let count = Mutex(0)
        private let started = Mutex<Task<Void, Never>?>(nil)

        init(_ changes: AsyncStream<Void>) {
            let task = Task { [self] in for await _ in changes { count.withLock { $0 += 1 } } }
            started.withLock { $0 = task }
        }

        var value: Int { count.withLock { $0 } }
        var task: Task<Void, Never> { started.withLock { $0! } }
    }

    /// Whether `condition` holds within ten seconds.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aCommitOfThisReplicaIsReported() async throws {
        let test = try TestReplica("monitor-own", owner: "Ann", keySeed: 1)
        let counter = Counter(try test.replica.changeMonitor().changes())
        defer { counter.task.cancel() }
        try test.replica.addPlayer(name: "Ben")
        #expect(try await eventually { counter.value >= 1 })
    }

    /// The writer's observer reports a commit and inotify then sees the same commit's writes: the
    /// monitor reports each commit once, whichever source reads `data_version` first.
    @Test func eachCommitOfThisReplicaIsReportedOnce() async throws {
        let test = try TestReplica("monitor-once", owner: "Ann", keySeed: 5)
        let counter = Counter(try test.replica.changeMonitor().changes())
        defer { counter.task.cancel() }
        for index in 1...5 {
            try test.replica.addPlayer(name: "Player \(index)")
            #expect(try await eventually { counter.value >= index })
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(counter.value == 5)
    }

    @Test func aCommitOfAnotherConnectionIsReported() async throws {
        let test = try TestReplica("monitor-other", owner: "Ann", keySeed: 2)
        let counter = Counter(try test.replica.changeMonitor().changes())
        defer { counter.task.cancel() }
        // A second opening of the store has its own connections, as another process would.
        let other = try Replica.open(at: test.replica.directory)
        try other.addPlayer(name: "Ben")
        #expect(try await eventually { counter.value >= 1 })
        let seen = counter.value
        try other.addPlayer(name: "Cat")
        #expect(try await eventually { counter.value > seen })
        try other.close()
    }

    @Test func readsAreNotReported() async throws {
        let test = try TestReplica("monitor-reads", owner: "Ann", keySeed: 3)
        let counter = Counter(try test.replica.changeMonitor().changes())
        defer { counter.task.cancel() }
        let other = try Replica.open(at: test.replica.directory)
        for _ in 0..<20 {
            _ = try other.players()
            _ = try test.replica.rounds()
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(counter.value == 0)
        try other.close()
    }

    @Test func theStreamEndsWhenItsConsumerIsCancelled() async throws {
        let test = try TestReplica("monitor-cancel", owner: "Ann", keySeed: 4)
        let monitor = try test.replica.changeMonitor()
        let counter = Counter(monitor.changes())
        counter.task.cancel()
        await counter.task.value
        // A monitor serves one stream: a second one has already ended.
        for await _ in monitor.changes() { Issue.record("a second stream yielded") }
    }
}
