import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging

/// TCP sync on loopback: the bytes and time of a no-op sync and a one-op sync between two
/// replicas holding the same large history, and the latency of live pushes.
struct SyncBenchmark {
    let opCount: Int
    let latencySamples: Int
    let scratch: URL

    func run() async throws -> [Figure] {
        let group = GroupMembership(id: UUID(v5: "bench-sync", namespace: SeededCourses.namespace), secret: Array(repeating: 11, count: 32))
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let history = AuthorSegment(ops: BenchData.ops(keys: SigningKeyPair(seed: Array(repeating: 12, count: 32)), count: opCount))
        func replica(_ name: String, _ seed: UInt8) throws -> Replica {
            let replica = try Replica.create(
                at: scratch.appendingPathComponent(name), name: name, kind: .phone, owner: name,
                keys: SigningKeyPair(seed: Array(repeating: seed, count: 32)))
            try replica.join(group)
            _ = try replica.ingest([history])
            return replica
        }
        let a = try replica("a", 13)
        let b = try replica("b", 14)
        let fullBundle = Bundle(
            groupID: group.id, sender: a.author, senderVector: try a.versionVector(), segments: try a.delta(above: VersionVector())
        )
        .encoded(signedBy: a.signature(of:)).count

        let server = try await PeerServer(replica: a, group: group, logger: logger).start()
        defer { server.stop() }
        _ = try await PeerDialer.connectAndRun(server.address, replica: b, group: group, mode: .oneShot, logger: logger)
        var quiet = ConnectionOutcome()
        let quietSeconds = try await Stopwatch.asyncSeconds {
            quiet = try await PeerDialer.connectAndRun(server.address, replica: b, group: group, mode: .oneShot, logger: logger)
        }
        try a.addPlayer(name: "Newcomer")
        var one = ConnectionOutcome()
        let oneSeconds = try await Stopwatch.asyncSeconds {
            one = try await PeerDialer.connectAndRun(server.address, replica: b, group: group, mode: .oneShot, logger: logger)
        }
        precondition(quiet.failure == nil && one.failure == nil && one.opsReceived == 1, "the benchmark syncs must succeed")
        let quietBytes = Double(quiet.bytesSent + quiet.bytesReceived)
        let oneBytes = Double(one.bytesSent + one.bytesReceived)

        // Live: b keeps a connection to a; each op committed on a is timed until b has committed it.
        var serverB = PeerServer(replica: b, group: group, logger: logger)
        serverB.peers = [server.address]
        let live = try await serverB.start()
        defer { live.stop() }
        try await Self.waitUntil { try a.digest() == b.digest() }
        var latencies: [Double] = []
        let round = try a.startRound(course: "Morley Field", players: ["a"])
        try await Self.waitUntil { try b.versionVector()[a.author] == a.versionVector()[a.author] }
        // Waiting on b's own change monitor leaves the cores to the replicas (a spin would take one).
        var commitsOnB = try b.changeMonitor().changes().makeAsyncIterator()
        let first = try a.versionVector()[a.author]
        for index in 0..<latencySamples {
            // The clock starts as the command returns from its commit: the op's sequence (one op a
            // score, checked below) is read before it, not in the time measured.
            let target = try a.versionVector()[a.author] + 1
            try a.recordScore(round: round.id.lowercased, player: "a", hole: index % 18 + 1, strokes: 3)
            let committed = DispatchTime.now().uptimeNanoseconds
            while try b.versionVector()[a.author] < target { _ = await commitsOnB.next() }
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e6)
        }
        let last = try a.versionVector()[a.author]
        precondition(last == first + UInt64(latencySamples), "each score must be one op")
        latencies.sort()
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        let commit = try Self.rawCommitMilliseconds(scratch.appendingPathComponent("commit.sqlite"), count: 50)

        return [
            Figure(
                name: "no-op sync (\(opCount) ops each)", value: quietBytes, unit: "bytes", baseline: Double(fullBundle),
                baselineName: "a full bundle of the same replica (what a naive sync sends)", ratio: Double(fullBundle) / quietBytes,
                target: "< 2048 B", met: quietBytes < 2048, spread: 0),
            Figure(
                name: "one-op sync (\(opCount) ops each)", value: oneBytes, unit: "bytes", baseline: Double(fullBundle),
                baselineName: "a full bundle of the same replica (what a naive sync sends)", ratio: Double(fullBundle) / oneBytes,
                target: "< 3072 B", met: oneBytes < 3072, spread: 0),
            Figure(
                name: "no-op sync time", value: quietSeconds * 1000, unit: "ms", baseline: nil, baselineName: nil, ratio: nil,
                target: nil, met: nil, spread: 0),
            Figure(
                name: "one-op sync time", value: oneSeconds * 1000, unit: "ms", baseline: nil, baselineName: nil, ratio: nil,
                target: nil, met: nil, spread: 0),
            Figure(
                name: "live latency p50 (\(latencySamples) ops)", value: p50, unit: "ms", baseline: commit,
                baselineName: "one raw SQLite commit with synchronous=FULL (the floor of committing on the peer)",
                ratio: commit / p50, target: "≤ 3.3× the floor", met: p50 <= 3.3 * commit, spread: 0),
            Figure(
                name: "live latency p99 (\(latencySamples) ops)", value: p99, unit: "ms", baseline: commit,
                baselineName: "one raw SQLite commit with synchronous=FULL (the floor of committing on the peer)",
                ratio: commit / p99, target: "≤ 13× the floor", met: p99 <= 13 * commit, spread: 0),
        ]
    }

    static func waitUntil(_ condition: () throws -> Bool) async throws {
        for _ in 0..<20_000 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw CancellationError()
    }

    /// The median time of a one-row commit with the store's durability settings.
    static func rawCommitMilliseconds(_ url: URL, count: Int) throws -> Double {
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (x BLOB)")
        }
        var samples = Samples()
        for index in 0..<count {
            samples.add(
                try Stopwatch.seconds {
                    try queue.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Data([UInt8(index % 256)])]) }
                })
        }
        return samples.median * 1000
    }
}
