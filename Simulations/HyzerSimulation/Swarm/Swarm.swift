/// Many seeds, each drawing its own configuration: the way to find the rare interleaving.
public struct Swarm {
    /// The runs of a swarm and their sum.
    public struct Outcome: Sendable, Encodable {
        /// One result per seed, in seed order.
        public let runs: [SimulationResult]
        /// Their sum.
        public let summary: Summary

        /// The outcome of `runs`, summarized.
        public init(runs: [SimulationResult]) {
            self.runs = runs
            summary = Swarm.summarize(runs)
        }
    }

    /// A swarm at a glance: how many seeds passed, each failure's reproduction line, and the
    /// coverage of all runs added up (a zero there is a case no seed reached).
    public struct Summary: Sendable, Encodable {
        /// Seeds run.
        public let seeds: Int
        /// Seeds whose every check passed.
        public let passed: Int
        /// Seeds that failed.
        public let failed: Int
        /// Each failure with its reproduction line.
        public let failures: [String]
        /// Ops created over all runs.
        public let opsCreated: Int
        /// Simulated hours over all runs.
        public let simulatedHours: Double
        /// Every run's coverage added up.
        public let coverage: Coverage
        /// Cases no seed reached.
        public let missing: [String]
    }

    /// The request each seed runs with: drawn configurations, plus any explicit overrides.
    public let template: SimulationRequest
    /// The first seed; the swarm runs `firstSeed ..< firstSeed + count`.
    public let firstSeed: UInt64
    /// Seeds to run.
    public let count: Int

    /// A swarm of `count` seeds from `firstSeed`, each drawing its configuration.
    public init(template: SimulationRequest, firstSeed: UInt64, count: Int) {
        var template = template
        template.swarm = true
        self.template = template
        self.firstSeed = firstSeed
        self.count = count
    }

    /// Runs every seed (or, with `stopAtFirstFailure`, until one fails), calling `progress`
    /// after each run.
    public func run(stopAtFirstFailure: Bool = false, progress: ((Int, SimulationResult) -> Void)? = nil) -> Outcome {
        var runs: [SimulationResult] = []
        for offset in 0..<count {
            let result = Simulation(request: template.with(seed: firstSeed + UInt64(offset))).run()
            runs.append(result)
            progress?(offset + 1, result)
            if stopAtFirstFailure, !result.passed { break }
        }
        return Outcome(runs: runs)
    }

    /// The summary of `runs`.
    public static func summarize(_ runs: [SimulationResult]) -> Summary {
        var coverage = Coverage()
        for run in runs { coverage.add(run.coverage) }
        let failures = runs.filter { !$0.passed }
        return Summary(
            seeds: runs.count, passed: runs.count - failures.count, failed: failures.count,
            failures: failures.map { $0.failure.map { "\($0.kind): \($0.message) — \($0.reproduction)" } ?? $0.reproduction },
            opsCreated: runs.reduce(0) { $0 + $1.opsCreated },
            simulatedHours: runs.reduce(0) { $0 + $1.simulatedSeconds } / 3_600,
            coverage: coverage, missing: coverage.missing.map(\.rawValue))
    }
}
