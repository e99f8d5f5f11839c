import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging
import Synchronization

/// TCP sync on loopback: the bytes and time of a no-op sync and a one-op sync between two
/// replicas holding the same large history, and the latency of live pushes.
struct SyncBenchmark {
    /// One live push's stamps, in uptime nanoseconds: around a's commit that holds sequence
    /// `target` of a (its start, when SQLite begins the commit, and its end, when the writer
    /// returns from it), and b's first commit that holds it.
    struct PushStamps {
        var target: UInt64 = .max
        var committing: UInt64?
        var sent: (start: UInt64, end: UInt64)?
        var received: UInt64?

        /// The push's time: from the end of a's commit to b's. A peer can commit before a's
        /// writer returns (a's change monitor also hears of the commit through inotify, on a
        /// thread of its own); such a push counts from the start of a's commit, an upper bound.
        var milliseconds: Double? {
            guard let sent, let received, received >= sent.start else { return nil }
            return Double(received - (received >= sent.end ? sent.end : sent.start)) / 1e6
        }
    }

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

        // Each push is timed from a's commit to b's, both stamped by the writers' own commit
        // observers (`Replica.observeCommits`), and again from the command's return to a reader
        // on b that sees it (what an app on b waits for).
        let stamps = Mutex(PushStamps())
        let author = Data(a.author.bytes)
        // Read on a's writer after its stamp but before a's server hears of the commit: a cached
        // statement keeps the read (a few µs) from adding to the time measured.
        @Sendable func head(_ db: Database) -> UInt64 {
            let statement = try? db.cachedStatement(sql: "SELECT headSequence FROM authors WHERE key = ?")
            let head = statement.flatMap { try? Int64.fetchOne($0, arguments: [author]) } ?? 0
            return UInt64(max(head, 0))
        }
        let sent = a.observeCommits(
            willCommit: {
                let now = DispatchTime.now().uptimeNanoseconds
                stamps.withLock { $0.committing = now }
            },
            didCommit: { db in
                let now = DispatchTime.now().uptimeNanoseconds
                let held = head(db)
                stamps.withLock { stamps in
                    if stamps.sent == nil, held >= stamps.target, let start = stamps.committing { stamps.sent = (start, now) }
                }
            })
        let received = b.observeCommits { db in
            let now = DispatchTime.now().uptimeNanoseconds
            let held = head(db)
            stamps.withLock { if $0.received == nil, held >= $0.target { $0.received = now } }
        }
        defer { withExtendedLifetime((sent, received)) {} }

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
        let round = try a.startRound(course: "Morley Field", players: ["a"])
        try await Self.waitUntil { try b.versionVector()[a.author] == a.versionVector()[a.author] }
        var commitToCommit: [Double] = []
        var toReader: [Double] = []
        // Waiting on b's own change monitor leaves the cores to the replicas (a spin would take one).
        var commitsOnB = try b.changeMonitor().changes().makeAsyncIterator()
        let first = try a.versionVector()[a.author]
        for index in 0..<latencySamples {
            // The op's sequence (one op a score, checked below) is read before the clock starts.
            let target = try a.versionVector()[a.author] + 1
            stamps.withLock { $0 = PushStamps(target: target) }
            try a.recordScore(round: round.id.lowercased, player: "a", hole: index % 18 + 1, strokes: 3)
            let returned = DispatchTime.now().uptimeNanoseconds
            while try b.versionVector()[a.author] < target { _ = await commitsOnB.next() }
            toReader.append(Double(DispatchTime.now().uptimeNanoseconds - returned) / 1e6)
            // A reader can see the commit before b's observer has stamped it: the stamp follows.
            var pushed = stamps.withLock { $0 }
            let deadline = ContinuousClock.now + .seconds(5)
            while pushed.received == nil, ContinuousClock.now < deadline {
                await Task.yield()
                pushed = stamps.withLock { $0 }
            }
            guard let milliseconds = pushed.milliseconds else {
                throw BenchError.unexpected(
                    "live push \(index): a's commit stamped \(pushed.sent.map { "\($0)" } ?? "never"), b's \(pushed.received.map { "\($0)" } ?? "never")"
                )
            }
            commitToCommit.append(milliseconds)
        }
        let last = try a.versionVector()[a.author]
        precondition(last == first + UInt64(latencySamples), "each score must be one op")
        let (p50, p99) = Self.percentiles(commitToCommit)
        let (readerP50, readerP99) = Self.percentiles(toReader)
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
            Figure(
                name: "live push to a reader on the peer p50", value: readerP50, unit: "ms", baseline: commit,
                baselineName: "one raw SQLite commit with synchronous=FULL", ratio: commit / readerP50, target: nil, met: nil,
                spread: 0),
            Figure(
                name: "live push to a reader on the peer p99", value: readerP99, unit: "ms", baseline: commit,
                baselineName: "one raw SQLite commit with synchronous=FULL", ratio: commit / readerP99, target: nil, met: nil,
                spread: 0),
        ]
    }

    /// The median and the 99th percentile of `samples`.
    static func percentiles(_ samples: [Double]) -> (p50: Double, p99: Double) {
        let sorted = samples.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
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
