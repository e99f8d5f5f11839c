import Foundation
import HyzerKit
import Testing

/// The vector and holdings kept between commits (`StoreReadCache`, docs/store.md, "Reads kept
/// between changes"): a commit by this replica or by another opening of the store, as another
/// process would make, is seen by the very next read.
@Suite struct StoreReadCacheTests {
    @Test func aCommitOfAnotherOpeningIsSeenByTheNextRead() throws {
        let test = try TestReplica("cache-other", owner: "Ann", keySeed: 11)
        // A second opening of the store has its own connections, as another process would.
        let other = try Replica.open(at: test.replica.directory)
        defer { try? other.close() }
        for round in 0..<20 {
            let before = try test.replica.versionVector()[test.author]
            #expect(try test.replica.versionVector()[test.author] == before)
            if round.isMultiple(of: 2) {
                _ = try other.addPlayer(name: "Guest \(round)")
            } else {
                _ = try test.replica.addPlayer(name: "Guest \(round)")
            }
            #expect(try test.replica.versionVector()[test.author] == before + 1)
            #expect(try other.versionVector()[test.author] == before + 1)
            #expect(try test.replica.holdings().vector == test.replica.versionVector())
            #expect(try other.holdings().vector == test.replica.versionVector())
        }
    }

    /// Writers and readers on several threads at once: each writer's next read shows its write.
    @Test func everyReadAfterAWriteShowsItUnderConcurrency() async throws {
        let test = try TestReplica("cache-threads", owner: "Ann", keySeed: 14)
        let other = try Replica.open(at: test.replica.directory)
        defer { try? other.close() }
        let replica = test.replica
        let author = test.author
        let stale = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var stale = 0
                    let writer = task.isMultiple(of: 2) ? replica : other
                    for step in 0..<40 {
                        _ = try writer.addPlayer(name: "P\(task)-\(step)")
                        let written = try writer.versionVector()[author]
                        for reader in [replica, other] {
                            if try reader.versionVector()[author] < written { stale += 1 }
                            if try reader.holdings().vector[author] < written { stale += 1 }
                        }
                    }
                    return stale
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(stale == 0)
    }

    @Test func heldOpsAreReleasedWhenTheirTimeComesThoughNothingCommits() throws {
        let writer = try TestReplica("cache-ahead", owner: "Ann", keySeed: 12, start: baseTime + 3_600_000)
        _ = try writer.replica.addPlayer(name: "Ben")
        let reader = try TestReplica("cache-behind", owner: "Cat", keySeed: 13)
        try reader.replica.pull(from: writer.replica)
        // The reader's clock is an hour behind the ops: they are held, and the vector lacks them.
        #expect(try reader.replica.versionVector()[writer.author] == 0)
        #expect(try reader.replica.holdings().vector[writer.author] == writer.replica.versionVector()[writer.author])
        reader.clock.set(baseTime + 7_200_000)
        #expect(try reader.replica.versionVector()[writer.author] == writer.replica.versionVector()[writer.author])
    }
}
