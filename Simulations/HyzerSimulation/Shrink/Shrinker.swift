/// Reduces a failing run to a smaller world that still fails the same check: fewer devices,
/// fewer holes, fewer hours, fewer and shorter faults (docs/simulation.md, "Shrinking").
///
/// Greedy, like a property-based tester's shrinker: it tries each smaller world in turn — one
/// device fewer, half the holes, one fault kind off or halved — keeps the first that fails with
/// the same kind of failure, and starts over from it, until no move fails or the budget of runs
/// is spent. Every world it tries is a request, so the result's reproduction line runs it again.
/// The seed stays; moving a knob changes what the seed draws, so a move can lose the failure,
/// and the shrinker then simply tries the next move.
public struct Shrinker {
    /// The most runs one shrink may make.
    public let budget: Int
    /// The rules the devices run, those of the failing run.
    public let policies: SimulationPolicies

    public init(budget: Int = 100, policies: SimulationPolicies = .shipped) {
        self.budget = budget
        self.policies = policies
    }

    /// What a shrink found.
    public struct Outcome: Hashable, Sendable, Encodable {
        /// The failure of the smallest failing world found (the original's when nothing smaller failed).
        public let failure: SimulationFailure
        /// The line that runs that world.
        public let reproduction: String
        /// The size of the original world and of the shrunk one.
        public let originalSize: WorldSize
        public let shrunkSize: WorldSize
        /// Runs made.
        public let runs: Int
    }

    /// Shrinks `failed`, the result of running `request` under `policies`, which failed with `failure`.
    public func shrink(_ failed: SimulationResult, request: SimulationRequest, failure: SimulationFailure) -> Outcome {
        var best = (request: request, result: failed, failure: failure)
        var runs = 0
        var progressed = true
        while progressed, runs < budget {
            progressed = false
            for candidate in Self.moves(from: best.request) where runs < budget {
                runs += 1
                let result = Simulation(request: candidate, policies: policies).run()
                if let found = result.failure, found.kind == failure.kind {
                    best = (candidate, result, found)
                    progressed = true
                    break
                }
            }
        }
        return Outcome(
            failure: best.failure, reproduction: best.request.commandLine, originalSize: WorldSize(failed.configuration),
            shrunkSize: WorldSize(best.result.configuration), runs: runs)
    }

    /// Smaller worlds than `request`'s, the boldest first; each differs by one knob.
    static func moves(from request: SimulationRequest) -> [SimulationRequest] {
        let configuration = request.configuration
        var moves: [SimulationRequest] = []
        func with(_ change: (inout SimulationRequest.Overrides) -> Void) {
            var next = request
            change(&next.overrides)
            if next.configuration.problem() == nil, next.configuration != configuration { moves.append(next) }
        }
        if configuration.watches > 0 { with { $0.watch = false } }
        if configuration.laptop { with { $0.laptop = false } }
        if configuration.phones > 1 { with { $0.phones = configuration.phones - 1 } }
        if configuration.holes > 1 {
            with { $0.holes = max(1, configuration.holes / 2) }
            with { $0.holes = configuration.holes - 1 }
        }
        if configuration.hours > 0.1 { with { $0.hours = max(0.1, (configuration.hours / 2 * 100).rounded() / 100) } }
        for knob in Knob.allCases {
            for value in knob.smaller(than: knob.value(in: configuration)) {
                with { $0.knobs[knob] = value }
            }
        }
        return moves
    }
}

/// How big a simulated world is: what a shrink reduces.
public struct WorldSize: Hashable, Sendable, Encodable, CustomStringConvertible {
    public let devices: Int
    public let holes: Int
    public let hours: Double
    /// Fault kinds switched on (partitions, offline periods, loss, crashes, clock steps, …).
    public let faultKinds: Int

    public init(_ configuration: SimulationConfiguration) {
        devices = configuration.deviceCount
        holes = configuration.holes
        hours = configuration.hours
        let faults: [Knob] = [
            .partitions, .oneWayPartitions, .offlinePeriods, .watchAway, .outages, .loss, .stalls, .crashes, .clockSteps, .skew, .drift,
            .courseEdits, .mistakes, .finishWhileOffline, .folderFaults,
        ]
        faultKinds = faults.filter { $0.value(in: configuration) > 0 }.count
    }

    /// Smaller in one measure and larger in none.
    public func isSmaller(than other: WorldSize) -> Bool {
        self != other && devices <= other.devices && holes <= other.holes && hours <= other.hours && faultKinds <= other.faultKinds
    }

    public var description: String {
        "\(devices) devices, \(holes) holes, \(String(format: "%.2f", hours)) h, \(faultKinds) fault kinds"
    }
}
