import Foundation
import HyzerKit
import HyzerWeb
import Logging

/// The live leaderboard's latency: from a score's commit to the leaderboard event carrying it
/// arriving at a raw HTTP client of `/rounds/R/events`, beside the time until another connection
/// to the store sees the commit (what any live view has to wait for).
struct WebBenchmark {
    let samples: Int
    let scratch: URL

    func run() async throws -> [Figure] {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let replica = try Replica.create(at: scratch.appendingPathComponent("web"), name: "web", kind: .laptop, owner: "Host")
        let players = (0..<(samples / 18 + 1)).map { "Player \($0)" }
        for name in players { try replica.addPlayer(name: name) }
        let round = try replica.startRound(course: "Morley Field", players: players).id.lowercased
        let server = try await WebServer(replica: replica, access: .open, metrics: WebMetrics(), logger: logger).start()
        defer { server.stop() }
        let stream = try HTTPProbe(port: server.port, path: "/rounds/\(round)/events")
        /// Whole board events in `text` (each ends with the table's last data line and a blank line).
        @Sendable func events(_ text: String) -> Int { text.components(separatedBy: "data: </table>\n\n").count - 1 }
        guard await stream.read(until: { events($0) == 1 }) else { throw HTTPProbe.ProbeError.failed("no first event") }

        var web: [Double] = []
        for index in 0..<samples {
            // Only the new event is looked at: the client's work stays the same however long the stream.
            stream.discard()
            let started = DispatchTime.now().uptimeNanoseconds
            _ = try replica.recordScore(round: round, player: players[index / 18], hole: index % 18 + 1, strokes: 2 + index % 3)
            guard await stream.read(until: { events($0) >= 1 }) else { throw HTTPProbe.ProbeError.failed("no event for score \(index)") }
            web.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }

        // Baseline: the same commits, timed until another connection to the store sees them.
        var commits = try replica.changeMonitor().changes().makeAsyncIterator()
        var signal: [Double] = []
        for index in 0..<samples {
            let started = DispatchTime.now().uptimeNanoseconds
            _ = try replica.recordScore(round: round, player: players[index / 18], hole: index % 18 + 1, strokes: 3)
            guard await commits.next() != nil else { throw HTTPProbe.ProbeError.failed("the change monitor stopped") }
            signal.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        }
        web.sort()
        signal.sort()
        let p50 = web[web.count / 2]
        let p99 = web[min(web.count - 1, web.count * 99 / 100)]
        let floor = signal[signal.count / 2]
        let baselineName = "the commit seen by the store's change monitor (the floor of any live view)"
        return [
            Figure(
                name: "commit to leaderboard event p50 (\(samples) scores)", value: p50, unit: "ms", baseline: floor,
                baselineName: baselineName,
                ratio: floor / p50, target: "≤ 100 ms", met: p50 <= 100, spread: 0),
            Figure(
                name: "commit to leaderboard event p99 (\(samples) scores)", value: p99, unit: "ms", baseline: floor,
                baselineName: baselineName,
                ratio: floor / p99, target: "≤ 100 ms", met: p99 <= 100, spread: 0),
        ]
    }
}
