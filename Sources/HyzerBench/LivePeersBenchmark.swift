import Foundation
import GRDB
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging
import Synchronization

/// A `serve` process on the director's store holding every phone of a `Tournament` as a live
/// peer over loopback (the phones are replicas of this process, each dialing with
/// `PeerDialer`): its CPU while they idle and its resident memory, beside the same `serve` before
/// any peer connected; and, unless `scores` is 0 (a crowd held only to measure the serve), how
/// long one score committed on the director's store takes to reach every phone, beside the same
/// with one phone connected.
struct LivePeersBenchmark {
    let tournament: Tournament
    let window: Duration
    let scores: Int
    /// The most resident memory the serve may take, in MiB.
    var memoryTarget = 100.0
    /// Where the storage floor's scratch stores go (beside the phones' stores, on the same disk).
    let scratch: URL

    /// The longest any one wait may take: a score that does not arrive fails the run.
    static let waitSeconds = 60.0

    func run() async throws -> [Figure] {
        let logger = {
            var logger = Logger(label: "bench")
            logger.logLevel = .critical
            return logger
        }()
        let phones = tournament.phones
        let serve = try ServeProcess(store: tournament.director.directory)
        defer { serve.stop() }
        let address = PeerAddress(host: "127.0.0.1", port: serve.port)
        let arrivals = Arrivals(peers: phones.count)
        let signals = phones.indices.map { index in ConnectionSignals(progress: { arrivals.record(index, $0) }) }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                for signal in signals { signal.publish(.tick) }
            }
        }
        defer { ticker.cancel() }
        var connections: [Task<Void, Never>] = []
        // A serve lets at most 8 connections of one address through the handshake at once
        // (docs/sync-protocol.md), and every phone here dials from 127.0.0.1: they dial 8 at a time.
        func connect(_ indices: Range<Int>) async throws {
            for start in stride(from: indices.lowerBound, to: indices.upperBound, by: 8) {
                let batch = start..<min(start + 8, indices.upperBound)
                for index in batch {
                    connections.append(
                        Task { [tournament] in
                            _ = try? await PeerDialer.connectAndRun(
                                address, replica: phones[index], group: tournament.group, mode: .live, logger: logger,
                                signals: signals[index])
                            arrivals.connectionEnded()
                        })
                }
                try await Self.wait("phones \(batch) to connect", interval: 0.005) { arrivals.opened(batch) }
            }
            let target = try tournament.director.versionVector()
            try await Self.wait("\(indices.count) phones to catch up", interval: 0.05) {
                try indices.allSatisfy { try phones[$0].versionVector().covers(target) }
            }
        }

        // Every phone holds the tournament so far, as after a folder sync: connecting costs a hello.
        let everything = try tournament.director.delta(above: VersionVector())
        for phone in phones { _ = try phone.ingest(everything) }
        let idleBefore = try serve.sample()
        try await Task.sleep(for: window)
        let idle = try serve.sample().since(idleBefore)
        try await connect(0..<1)
        let single = scores > 0 ? try await propagate(arrivals, peers: 0..<1) : []
        try await connect(1..<phones.count)
        let busyBefore = try serve.sample()
        try await Task.sleep(for: window)
        let busy = try serve.sample().since(busyBefore)
        let all = scores > 0 ? try await propagate(arrivals, peers: 0..<phones.count) : []
        serve.stop()
        for connection in connections { connection.cancel() }
        try await Self.wait("the phones' connections to close", interval: 0.05) { arrivals.endedConnections == connections.count }

        let count = phones.count
        let seconds = Double(window.components.seconds)
        let serveFigures = [
            Figure(
                name: "serve holding \(count) live peers, CPU (\(Int(seconds)) s)", value: busy.percentOfCore, unit: "% of a core",
                baseline: idle.percentOfCore,
                baselineName: "the same serve before any peer connected (\(idle.ticks) ticks; with peers \(busy.ticks))",
                ratio: busy.percentOfCore > 0 && idle.percentOfCore > 0 ? idle.percentOfCore / busy.percentOfCore : nil, target: "< 2%",
                met: busy.percentOfCore < 2, spread: 0),
            Figure(
                name: "serve holding \(count) live peers, resident memory", value: busy.rssMebibytes, unit: "MiB",
                baseline: idle.rssMebibytes, baselineName: "the same serve before any peer connected",
                ratio: idle.rssMebibytes / busy.rssMebibytes, target: "≤ \(Int(memoryTarget)) MiB",
                met: busy.rssMebibytes <= memoryTarget, spread: 0),
        ]
        guard scores > 0 else { return serveFigures }
        func percentile(_ values: [Double], _ p: Int) -> Double { values.sorted()[min(values.count - 1, values.count * p / 100)] }
        let (arrivalsToAll, arrivalsToOne) = (all.flatMap { $0 }, single.flatMap { $0 })
        func latency(_ p: Int, target: Double) -> Figure {
            let value = percentile(arrivalsToAll, p)
            let floor = percentile(arrivalsToOne, p)
            return Figure(
                name: "score to \(count) live peers p\(p) (\(scores) scores)", value: value, unit: "ms", baseline: floor,
                baselineName: "the same percentile of the same scores with one phone connected", ratio: floor / value,
                target: "≤ \(Int(target)) ms", met: value <= target, spread: 0)
        }
        // What a director waits for: each score until the last phone committed it.
        // Its floor in this process: every phone's store committing one row at once.
        let lasts = all.compactMap { $0.max() }
        let floors = try Self.storageFloor(stores: count, rounds: scores, in: scratch)
        func lastPeer(_ p: Int, target: Double?) -> Figure {
            let value = percentile(lasts, p)
            let floor = percentile(floors, p)
            return Figure(
                name: "score to the last of \(count) live peers p\(p) (\(scores) scores)", value: value, unit: "ms", baseline: floor,
                baselineName:
                    "the same percentile of \(count) stores each committing one row at once, each on its own thread (the phones' storage floor in this process)",
                ratio: floor / value, target: target.map { "≤ \(Int($0)) ms" }, met: target.map { value <= $0 }, spread: 0)
        }
        return serveFigures + [
            latency(50, target: 100),
            latency(99, target: 250),
            lastPeer(50, target: nil),
            lastPeer(99, target: 100),
        ]
    }

    /// The phones' storage floor: `stores` SQLite stores as the phones keep theirs (WAL,
    /// `synchronous = FULL`) each commit one row the size of a score's bundle at once, each on a
    /// thread of its own, as each phone commits on its own device; per round, the milliseconds
    /// until the last committed. The bench process stands in for every phone, so their commits
    /// share this machine's disk and cores: no propagation to them all can beat this.
    static func storageFloor(stores: Int, rounds: Int, in scratch: URL) throws -> [Double] {
        let directory = scratch.appendingPathComponent("storage-floor")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queues = try (0..<stores).map { index in
            let queue = try DatabaseQueue(path: directory.appendingPathComponent("phone-\(index).sqlite").path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE ops (row BLOB NOT NULL)")
            }
            return queue
        }
        let row = Data(repeating: 7, count: 400)
        var times: [Double] = []
        for _ in 0..<rounds {
            let failure = Mutex<String?>(nil)
            let committed = DispatchGroup()
            let start = DispatchTime.now().uptimeNanoseconds
            for queue in queues {
                committed.enter()
                Thread {
                    defer { committed.leave() }
                    do {
                        try queue.write { db in try db.execute(sql: "INSERT INTO ops (row) VALUES (?)", arguments: [row]) }
                    } catch {
                        failure.withLock { $0 = $0 ?? "\(error)" }
                    }
                }.start()
            }
            committed.wait()
            if let failure = failure.withLock({ $0 }) { throw BenchError.unexpected("a storage-floor commit failed: \(failure)") }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return times
    }

    /// Commits `scores` scores on the director's store, one at a time, each timed from just
    /// before its commit until every phone in `peers` has ingested it; returns, per score, every
    /// phone's time.
    private func propagate(_ arrivals: Arrivals, peers: Range<Int>) async throws -> [[Double]] {
        let director = tournament.director
        var times: [[Double]] = []
        for index in 0..<scores {
            let card = tournament.cards[index % tournament.cards.count]
            let sequence = try director.versionVector()[director.author] + 1
            arrivals.expect(author: director.author, sequence: sequence)
            _ = try director.recordScore(
                round: card.round, player: card.players[index / tournament.cards.count % 4], hole: 17, strokes: 3 + index % 3)
            try await Self.wait("score \(index) to reach \(peers.count) phones", interval: 0.001) {
                arrivals.count(peers) == peers.count
            } progress: {
                "\(arrivals.count(peers)) reached, \(arrivals.endedConnections) connections ended"
            }
            times.append(arrivals.milliseconds(peers))
        }
        return times
    }

    /// Returns once `condition` holds, checking every `interval` seconds; throws after `waitSeconds`.
    static func wait(
        _ what: String, interval: Double, _ condition: () throws -> Bool, progress: () -> String = { "" }
    ) async throws {
        let deadline = Date().addingTimeInterval(waitSeconds)
        while try !condition() {
            guard Date() < deadline else { throw BenchError.unexpected("waited \(Int(waitSeconds)) s for \(what) \(progress())") }
            try await Task.sleep(for: .seconds(interval))
        }
    }
}

/// When each phone ingested the op being timed: its connection reports that the serve holds
/// it (`ConnectionProgress.peerHolds`) right after the phone's own commit of the bundle carrying it.
final class Arrivals: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`.
    private let lock = NSLock()
    private var target: (author: AuthorID, sequence: UInt64)?
    private var started: UInt64 = 0
    private var times: [Double?]
    private var ended = 0
    private var openedPeers: Set<Int> = []

    init(peers: Int) { times = Array(repeating: nil, count: peers) }

    func expect(author: AuthorID, sequence: UInt64) {
        lock.withLock {
            target = (author, sequence)
            started = DispatchTime.now().uptimeNanoseconds
            times = Array(repeating: nil, count: times.count)
        }
    }

    func record(_ peer: Int, _ progress: ConnectionProgress) {
        if case .opened = progress { _ = lock.withLock { openedPeers.insert(peer) } }
        guard case .peerHolds(_, let vector) = progress else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            guard let target, times[peer] == nil, vector[target.author] >= target.sequence else { return }
            times[peer] = Double(now - started) / 1e6
        }
    }

    func opened(_ peers: Range<Int>) -> Bool { lock.withLock { peers.allSatisfy(openedPeers.contains) } }

    func connectionEnded() { lock.withLock { ended += 1 } }

    var endedConnections: Int { lock.withLock { ended } }

    func count(_ peers: Range<Int>) -> Int { lock.withLock { times[peers].count { $0 != nil } } }

    func milliseconds(_ peers: Range<Int>) -> [Double] { lock.withLock { times[peers].compactMap { $0 } } }
}
