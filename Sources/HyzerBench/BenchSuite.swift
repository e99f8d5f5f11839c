import Foundation
import NIOCore

/// `hyzer-peer bench`: every figure beside a baseline measured in the same run.
public struct BenchSuite {
    public let quick: Bool
    /// The groups to run (of `groups`); all when empty.
    public let only: Set<String>
    /// Where the cost curve's drawing (SVG) goes, when the `curve` group runs.
    public var plot: URL?
    /// The largest group of the `bucket` figures, which converges on one round (150 in a full
    /// run; a smaller one shortens it: building and syncing 150 devices takes most of its time).
    public var bucketDevices: Int?

    public init(quick: Bool, only: Set<String> = [], plot: URL? = nil, bucketDevices: Int? = nil) {
        self.quick = quick
        self.only = only
        self.plot = plot
        self.bucketDevices = bucketDevices
    }

    /// Every group, in the order a full run measures them.
    public static let groups = ["ingest", "sync", "curve", "views", "web", "simulation", "tournament", "crowd", "bucket"]

    private func runs(_ group: String) -> Bool { only.isEmpty || only.contains(group) }

    /// The phones of the tournament group are replicas of this process, each of which would
    /// commit on its own device: NIO's pool for blocking work gets a thread per phone (up to 64)
    /// instead of one per core, so they do not wait in line for each other's fsync. Set once,
    /// before the pool is first used; the `serve` processes under test keep the default.
    private static let blockingThreads: Void = { NIOSingletons.blockingPoolThreadCountSuggestion = 64 }()

    /// Measures the groups, telling `progress` what it measures and `skipped` why a group cannot
    /// be measured on this machine.
    public func run(progress: (String) -> Void = { _ in }, skipped: (String) -> Void = { _ in }) async throws -> [Figure] {
        Self.blockingThreads
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var figures: [Figure] = []
        if runs("ingest") {
            progress("ingest, verification and size")
            figures += try IngestBenchmark(opCount: quick ? 10_000 : 100_000, repetitions: quick ? 2 : 5, scratch: scratch).run()
            figures += try DeviceStoreBenchmark(rounds: quick ? 25 : 250, scratch: scratch).run()
        }
        if runs("sync") {
            progress("sync over loopback TCP and live latency")
            figures += try await SyncBenchmark(opCount: quick ? 10_000 : 100_000, latencySamples: quick ? 100 : 1000, scratch: scratch)
                .run()
            progress("an idle live connection's bytes")
            figures += try IdleLiveConnectionBenchmark(scratch: scratch).run()
            progress("an idle serve's CPU")
            figures += try IdleBenchmark(window: .seconds(quick ? 1 : 20), scratch: scratch).run()
        }
        if runs("curve") {
            progress("the cost curve: sync bytes by group size and differences")
            let curve = try await CostCurveBenchmark(scratch: scratch).run()
            figures += curve.figures
            if let plot { try Data(CostCurvePlot.svg(curve.points).utf8).write(to: plot, options: .atomic) }
        }
        if runs("views") {
            progress("views on years of play")
            figures += try ViewBenchmark(
                rounds: quick ? 25 : 250, largeRounds: quick ? 100 : 2000, repetitions: quick ? 3 : 7, scratch: scratch
            ).run()
        }
        if runs("web") {
            progress("live leaderboard over HTTP")
            figures += try await WebBenchmark(samples: quick ? 50 : 300, scratch: scratch).run()
            figures += try await BucketPublishBenchmark(samples: quick ? 3 : 18, scratch: scratch).run(progress: progress)
        }
        if runs("simulation") {
            progress("simulation speed")
            figures += try SimulationBenchmark(repetitions: quick ? 1 : 3, tournament: !quick).run()
        }
        if runs("tournament") {
            progress("a tournament: folder, sync bytes and a serve holding every device")
            figures += try await TournamentBenchmark(
                sizes: quick ? [8] : [5, 50, 150], repetitions: quick ? 2 : 7, window: .seconds(quick ? 1 : 10), scores: quick ? 3 : 20,
                scratch: scratch
            ).run()
        }
        if runs("crowd") {
            progress("a serve holding a crowd of idle live peers")
            let directory = scratch.appendingPathComponent("crowd")
            let tournament = try Tournament(devices: quick ? 50 : 1000, directory: directory)
            defer { try? tournament.close() }
            figures += try await LivePeersBenchmark(
                tournament: tournament, window: .seconds(quick ? 1 : 20), scores: 0, memoryTarget: 200, scratch: directory
            ).run()
        }
        if runs("bucket") {
            if let reason = BucketSyncBenchmark.skipped {
                skipped("the bucket sync figures: \(reason)")
            } else {
                let largest = bucketDevices ?? (quick ? 5 : 150)
                figures += try BucketSyncBenchmark(
                    sizes: [5, 50].filter { $0 < largest } + [largest], converging: largest, repetitions: quick ? 2 : 5, scratch: scratch
                ).run(progress: progress)
            }
        }
        return figures
    }

    /// A line describing the machine, for the record.
    public static var machine: String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.physicalMemory / 1_073_741_824) GiB, \(info.operatingSystemVersionString)"
    }
}
