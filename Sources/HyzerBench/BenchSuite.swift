import Foundation

/// `hyzer-peer bench`: every figure beside a baseline measured in the same run.
public struct BenchSuite {
    public let quick: Bool

    public init(quick: Bool) {
        self.quick = quick
    }

    public func run(progress: (String) -> Void = { _ in }) throws -> [Figure] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-bench-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        progress("ingest, verification and size")
        return try IngestBenchmark(opCount: quick ? 10_000 : 100_000, repetitions: quick ? 2 : 5, scratch: scratch).run()
    }

    /// A line describing the machine, for the record.
    public static var machine: String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.physicalMemory / 1_073_741_824) GiB, \(info.operatingSystemVersionString)"
    }
}
