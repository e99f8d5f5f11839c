import Foundation

/// `hyzer-peer bench`: every figure beside a baseline measured in the same run.
public struct BenchSuite {
    public let quick: Bool

    public init(quick: Bool) {
        self.quick = quick
    }

    public func run(progress: (String) -> Void = { _ in }) async throws -> [Figure] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var figures: [Figure] = []
        progress("ingest, verification and size")
        figures += try IngestBenchmark(opCount: quick ? 10_000 : 100_000, repetitions: quick ? 2 : 5, scratch: scratch).run()
        progress("sync over loopback TCP and live latency")
        figures += try await SyncBenchmark(opCount: quick ? 10_000 : 100_000, latencySamples: quick ? 100 : 1000, scratch: scratch).run()
        progress("views on five years of play")
        figures += try ViewBenchmark(rounds: quick ? 25 : 250, repetitions: quick ? 3 : 7, scratch: scratch).run()
        return figures
    }

    /// A line describing the machine, for the record.
    public static var machine: String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.physicalMemory / 1_073_741_824) GiB, \(info.operatingSystemVersionString)"
    }
}
