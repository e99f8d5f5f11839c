import Foundation
import HyzerKit
import HyzerTestSupport
import HyzerWeb
import Logging

/// `serve --publish`'s latency (docs/bucket-sync.md, "Publishing the leaderboard"): from a score's
/// commit until the published leaderboard carrying it is read with a plain unsigned GET from a
/// local SeaweedFS, beside the same score's time until the local web server's page shows it.
/// Scores are a second and a half apart, as a publish follows a change at most once a second.
/// Without `weed` it is skipped, saying so, except under CI, where that fails the run.
struct BucketPublishBenchmark {
    let samples: Int
    let scratch: URL

    func run(progress: (String) -> Void) async throws -> [Figure] {
        guard SeaweedFS.executable != nil || SeaweedFS.underCI else {
            progress("publish latency skipped: \(SeaweedFS.install)")
            return []
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let store = try SeaweedFS.ready()
        let replica = try Replica.create(at: scratch.appendingPathComponent("publish"), name: "publish", kind: .laptop, owner: "Host")
        let round = try replica.startRound(course: "Morley Field", players: ["Host"]).id.lowercased
        let server = try await WebServer(replica: replica, access: .open, metrics: WebMetrics(), logger: logger).start()
        defer { server.stop() }
        let prefix = "\(SeaweedFS.publicPrefix)/bench"
        let publisher = Publisher(replica: replica, client: try store.client(prefix), logger: logger)
        let publishing = Task { try await publisher.run() }
        defer { publishing.cancel() }
        let published = "/\(SeaweedFS.bucket)/\(prefix)/round-\(round).html"
        guard try await Self.poll(port: store.port, path: published, until: { $0.status == 200 }) else {
            throw HTTPProbe.ProbeError.failed("the leaderboard was never published")
        }

        // One player's strokes so far, in the board's strokes column: new with every score.
        var strokes = 0
        var bucket: [Double] = []
        var local: [Double] = []
        for index in 0..<samples {
            try await Task.sleep(for: .milliseconds(1_500))
            let hole = index % 18 + 1
            strokes += 2 + hole % 3
            let shown = "<td class=\"num hide-narrow\">\(strokes)</td>"
            let started = DispatchTime.now().uptimeNanoseconds
            _ = try replica.recordScore(round: round, player: "Host", hole: hole, strokes: 2 + hole % 3)
            async let onServer = Self.time(since: started, port: server.port, path: "/rounds/\(round)", shown: shown)
            async let inBucket = Self.time(since: started, port: store.port, path: published, shown: shown)
            local.append(try await onServer)
            bucket.append(try await inBucket)
        }
        bucket.sort()
        local.sort()
        let p50 = bucket[bucket.count / 2]
        let floor = local[local.count / 2]
        return [
            Figure(
                name: "score to published page read over plain HTTP p50 (\(samples) scores)", value: p50, unit: "ms", baseline: floor,
                baselineName: "the same score on the local web server's page", ratio: floor / p50, target: "≤ 3000 ms",
                met: p50 <= 3_000, spread: (bucket[bucket.count - 1] - bucket[0]) / p50)
        ]
    }

    /// Milliseconds from `started` until GET `path` on `port` shows `shown` (at most 10 s).
    static func time(since started: UInt64, port: Int, path: String, shown: String) async throws -> Double {
        guard try await poll(port: port, path: path, until: { $0.body.contains(shown) }) else {
            throw HTTPProbe.ProbeError.failed("\(path) did not show the score within 10 s")
        }
        return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
    }

    /// GETs `path` until `condition` holds (true) or 10 s pass (false), every 5 ms.
    static func poll(port: Int, path: String, until condition: ((status: Int, head: String, body: String)) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition(try await HTTPProbe.fetch(port: port, path: path)) { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}
