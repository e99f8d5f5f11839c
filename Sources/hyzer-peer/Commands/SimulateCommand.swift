import ArgumentParser
import Foundation
import HyzerSimulation

/// `hyzer-peer simulate`: real replicas in a deterministic simulated world (docs/simulation.md).
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run real replicas through a simulated world of faults, and check they stay safe and converge.",
        discussion: """
            One seed drives everything: the same seed on the same build gives the same traceHash. \
            Every failure prints the one command line that reproduces it. See docs/simulation.md.
            """)

    @Option(help: "The seed of the run, or the first seed of a swarm (default 1).") var seed: UInt64?
    @Option(help: "Run a swarm of this many seeds, each drawing its own configuration.") var seeds: Int?
    @Flag(help: "Draw the configuration from the seed, as a swarm does.") var swarm = false
    @Option(help: "The world: standard, partition or tournament (a swarm draws its faults).") var scenario = "standard"
    @Option(help: "The ranges a swarm draws from: full or quick.") var profile = "full"
    @Option(help: "Phones, each owned by its own player.") var phones: Int?
    @Flag(inversion: .prefixedNo, help: "Add a watch paired with one phone.") var watch: Bool?
    @Flag(inversion: .prefixedNo, help: "Add a laptop that syncs only through the shared folder.") var laptop: Bool?
    @Option(help: "Simulated hours the rounds take.") var hours: Double?
    @Option(help: "Holes per round (18 plays a seeded course).") var holes: Int?
    @Flag(help: "Run each seed twice and compare the traces and digests.") var checkDeterminism = false
    @Flag(help: "Print every event of a single run on standard error.") var trace = false
    @Flag(inversion: .prefixedNo, help: "Shrink a failing run to the smallest world that still fails the same way.") var shrink = true
    @Option(help: "Seeds of a swarm run at once, each on its own thread (default: one per core).") var jobs: Int?
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Pin a fault or workload knob, as NAME=VALUE (repeatable).",
            discussion: "Knobs: \(Knob.allCases.map(\.rawValue).joined(separator: ", "))."))
    var knobs: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        guard let swarmProfile = SwarmProfile(rawValue: profile) else {
            throw ValidationError("--profile must be one of \(SwarmProfile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let named = Scenario(rawValue: scenario) else {
            throw ValidationError("--scenario must be one of \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var pinned: [Knob: Double] = [:]
        for argument in knobs {
            guard let (knob, value) = Knob.parse(argument) else {
                throw ValidationError(
                    "--set takes NAME=VALUE with a number of at least 0 and one of: \(Knob.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            pinned[knob] = value
        }
        let template = SimulationRequest(
            seed: seed ?? 1, scenario: named, swarm: swarm || seeds != nil, profile: swarmProfile,
            overrides: .init(phones: phones, watch: watch, laptop: laptop, hours: hours, holes: holes, knobs: pinned))
        if let problem = template.configuration.problem() { throw ValidationError(problem) }
        if let seeds {
            guard seeds >= 1 else { throw ValidationError("--seeds must be at least 1") }
            guard jobs.map({ $0 >= 1 }) ?? true else { throw ValidationError("--jobs must be at least 1") }
            try runSwarm(template, count: seeds)
        } else {
            try runOne(template)
        }
    }

    private func runOne(_ request: SimulationRequest) throws {
        let bar = ProgressBar()
        var result: SimulationResult
        var lines: [String] = []
        if checkDeterminism {
            bar.show(0, label: "seed \(request.seed), twice")
            result = Simulation.checkDeterminism(request)
        } else {
            let simulation = Simulation(request: request, keepTrace: trace)
            simulation.progress = { bar.show($0, label: "seed \(request.seed)") }
            result = simulation.run()
            lines = trace ? simulation.traceLines : (result.passed ? [] : simulation.recentTrace)
        }
        bar.clear()
        for line in lines { Terminal.error(line) }
        result.shrunk = Self.shrunk(result, request, shrink: shrink && !checkDeterminism, bar)
        if output.json {
            try JSONOutput.print(result)
        } else {
            printSummary(result)
        }
        if let failure = result.failure {
            Terminal.error(Terminal.paint(failure.description, .red))
            if let shrunk = result.shrunk { Terminal.error(Terminal.paint(Self.describe(shrunk), .red)) }
            throw ReportedFailure(exitCode: 1)
        }
    }

    /// The smallest world that fails like `result`, unless shrinking is off or nothing failed.
    private static func shrunk(
        _ result: SimulationResult, _ request: SimulationRequest, shrink: Bool, _ bar: ProgressBar?
    ) -> Shrinker.Outcome? {
        guard shrink, let failure = result.failure, failure.kind != .determinism else { return nil }
        bar?.show(0, label: "shrinking seed \(request.seed)")
        defer { bar?.clear() }
        return Shrinker().shrink(result, request: request, failure: failure)
    }

    static func describe(_ shrunk: Shrinker.Outcome) -> String {
        "shrunk in \(shrunk.runs) runs from \(shrunk.originalSize) to \(shrunk.shrunkSize): \(shrunk.failure.kind): \(shrunk.failure.message)\n"
            + "reproduce the smallest: \(shrunk.reproduction)"
    }

    /// Runs the seeds on `jobs` threads (each seed is its own world, so the results do not
    /// depend on how many run at once) and prints them in seed order.
    private func runSwarm(_ template: SimulationRequest, count: Int) throws {
        let bar = ProgressBar()
        let started = ContinuousClock.now
        let seeds = SwarmSeeds(count: count)
        let threads = min(count, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        let (checkDeterminism, shrink) = (checkDeterminism, shrink)
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { _ in
            while let offset = seeds.next(showing: bar) {
                let request = template.with(seed: template.seed + UInt64(offset))
                var result = checkDeterminism ? Simulation.checkDeterminism(request) : Simulation(request: request).run()
                result.shrunk = Self.shrunk(result, request, shrink: shrink && !checkDeterminism, nil)
                seeds.finish(offset, result, clearing: bar)
            }
        }
        bar.clear()
        let outcome = Swarm.Outcome(runs: seeds.results)
        if output.json {
            try JSONOutput.print(outcome)
        } else {
            printSwarm(outcome, elapsed: started.duration(to: .now), threads: threads)
        }
        if outcome.summary.failed > 0 { throw ReportedFailure(exitCode: 1) }
    }

    private func printSummary(_ result: SimulationResult) {
        let configuration = result.configuration
        let watches = configuration.watches == 1 ? "a watch" : configuration.watches > 1 ? "\(configuration.watches) watches" : nil
        let laptop = configuration.laptop ? (configuration.hub ? "the director's laptop" : "a laptop") : nil
        let players = configuration.players.map { "\($0) players on \(configuration.cardCount) cards" }
        let devices = ["\(configuration.phones) phones", watches, laptop, players].compactMap { $0 }.joined(separator: ", ")
        print("seed \(result.seed) · \(devices) · \(configuration.holes) holes over \(String(format: "%.2f", configuration.hours)) h")
        let state = result.passed ? Terminal.paint("converged", .green) : Terminal.paint("FAILED", .red)
        print(
            "\(state) at \(Self.duration(result.simulatedSeconds)) simulated (heal at \(Self.duration(result.healSeconds)))"
                + " · \(result.opsCreated) ops · \(result.bytesSent) bytes sent · \(result.events) events")
        if let seconds = result.finalLeaderboardSeconds {
            let shown = seconds < 60 ? String(format: "%.1f s", seconds) : Self.duration(seconds)
            print("final leaderboard on every device \(shown) after the last round finished")
        }
        print("traceHash  \(result.traceHash)")
        print("standings  \(result.standingsDigest ?? "-")")
        print("digest     \(result.storeDigest ?? "-")")
        print(
            String(
                format: "wall %.1f s · %.1f simulated device-hours per second", result.wallSeconds,
                result.deviceHours / max(result.wallSeconds, 0.001)))
        print(coverageTable(result.coverage))
        print("reproduce: \(result.reproduction)")
    }

    private func printSwarm(_ outcome: Swarm.Outcome, elapsed: Duration, threads: Int) {
        let summary = outcome.summary
        var table = Table([("Seed", .right), ("Devices", .right), ("Holes", .right), ("Hours", .right), ("Ops", .right), ("Result", .left)])
        for run in outcome.runs {
            table.add([
                .init("\(run.seed)"), .init("\(run.devices)"), .init("\(run.configuration.holes)"),
                .init(String(format: "%.2f", run.configuration.hours)), .init("\(run.opsCreated)"),
                run.passed ? .init("converged", .green) : .init(run.failure.map { "\($0.kind)" } ?? "failed", .red),
            ])
        }
        print(table.render())
        print(coverageTable(summary.coverage))
        let wall = outcome.runs.reduce(0) { $0 + $1.wallSeconds }
        let deviceHours = outcome.runs.reduce(0) { $0 + $1.deviceHours }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            String(
                format: "%d seeds: %d passed, %d failed · %.1f simulated device-hours in %.1f s of runs, %.1f s on %d threads",
                summary.seeds, summary.passed, summary.failed, deviceHours, wall, seconds, threads))
        if !summary.missing.isEmpty { print("never reached: \(summary.missing.joined(separator: ", "))") }
        for failure in summary.failures { print(Terminal.paint(failure, .red)) }
    }

    private func coverageTable(_ coverage: Coverage) -> String {
        var table = Table([("Case", .left), ("Count", .right)])
        for item in Coverage.Case.allCases {
            table.add([.init(item.rawValue), .init("\(coverage[item])", coverage[item] == 0 ? .dim : nil)])
        }
        return table.render()
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        return "\(total / 3_600)h \(String(format: "%02d", total / 60 % 60))m \(String(format: "%02d", total % 60))s"
    }
}

/// The seeds of a swarm, handed out to threads one at a time, and their results.
private final class SwarmSeeds: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    private var handedOut = 0
    private var done = 0
    private var failed = 0
    private var finished: [SimulationResult?]

    init(count: Int) {
        self.count = count
        finished = Array(repeating: nil, count: count)
    }

    /// The next seed's offset, or nil when every seed is taken.
    func next(showing bar: ProgressBar) -> Int? {
        lock.withLock {
            guard handedOut < count else { return nil }
            defer { handedOut += 1 }
            bar.show(Double(done) / Double(count), label: "\(done)/\(count) seeds done, \(failed) failed")
            return handedOut
        }
    }

    /// Records a result; a failure is printed at once, with its shrunk reproduction.
    func finish(_ offset: Int, _ result: SimulationResult, clearing bar: ProgressBar) {
        lock.withLock {
            finished[offset] = result
            done += 1
            guard let failure = result.failure else { return }
            failed += 1
            bar.clear()
            Terminal.error(Terminal.paint(failure.description, .red))
            if let shrunk = result.shrunk { Terminal.error(Terminal.paint(SimulateCommand.describe(shrunk), .red)) }
        }
    }

    /// Every result, in seed order.
    var results: [SimulationResult] { lock.withLock { finished.compactMap { $0 } } }
}

/// A one-line progress bar on standard error, drawn only when standard error is a terminal
/// (used under `SwarmSeeds`'s lock when threads share it).
private final class ProgressBar: @unchecked Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1
    private var drawn = false

    func show(_ fraction: Double, label: String) {
        guard enabled else { return }
        let width = 30
        let filled = max(0, min(width, Int(fraction * Double(width))))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(bar) \(Int(fraction * 100))% \(label)\u{1B}[K".utf8))
        drawn = true
    }

    func clear() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
