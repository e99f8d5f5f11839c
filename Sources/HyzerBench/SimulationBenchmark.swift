import Foundation
import HyzerSimulation

/// Simulation speed: simulated device-hours per wall-clock second for the default scenario; and,
/// unless quick, how long a simulated tournament takes to show every device the final leaderboard.
struct SimulationBenchmark {
    let repetitions: Int
    /// Whether to run the simulated tournament (two runs of 121 devices: half a minute or more).
    let tournament: Bool
    /// Fast enough for `make soak` to run 10,000 seeds in well under two hours (docs/simulation.md).
    static let target = 20.0
    /// Simulated seconds from the last round's finish until every device shows the final leaderboard.
    static let leaderboardTargetSeconds = 60.0

    func run() throws -> [Figure] {
        try speed() + (tournament ? leaderboard() : [])
    }

    /// The quick tournament of seed 1 (`simulate --scenario tournament --swarm --profile quick`)
    /// with every device present — no offline period, crash, dead zone or watch out of range,
    /// whose end would be the figure — on its lossy Wi-Fi with its stalls and outages, beside the
    /// same tournament on a Wi-Fi that never fails (the floor: the finish relayed through the
    /// director's laptop to every phone and watch).
    private func leaderboard() throws -> [Figure] {
        var present = SimulationRequest(seed: 1, scenario: .tournament, swarm: true, profile: .quick)
        for knob: Knob in [.offlinePeriods, .finishWhileOffline, .crashes, .partitions, .watchAway] {
            present.overrides.knobs[knob] = 0
        }
        var clean = present
        for knob: Knob in [.loss, .stalls, .outages] { clean.overrides.knobs[knob] = 0 }
        func seconds(_ request: SimulationRequest) throws -> Double {
            let result = Simulation(request: request).run()
            guard result.failure == nil, let seconds = result.finalLeaderboardSeconds else {
                throw BenchError.simulationFailed(result.failure.map { "\($0)" } ?? "the tournament showed no final leaderboard")
            }
            return seconds
        }
        let lossy = try seconds(present)
        let floor = try seconds(clean)
        return [
            Figure(
                name: "tournament: final leaderboard on every device (simulated)", value: lossy, unit: "s after the last finish",
                baseline: floor, baselineName: "the same tournament on a Wi-Fi that never fails (\(clean.commandLine))",
                ratio: floor / max(lossy, 0.001), target: "≤ \(Int(Self.leaderboardTargetSeconds)) s",
                met: lossy <= Self.leaderboardTargetSeconds, spread: 0)
        ]
    }

    private func speed() throws -> [Figure] {
        var speed = Samples()
        var devices = 0
        for repetition in 0..<repetitions {
            var result: SimulationResult?
            let seconds = Stopwatch.seconds { result = Simulation(request: SimulationRequest(seed: UInt64(repetition + 1))).run() }
            guard let result, result.failure == nil else {
                throw BenchError.simulationFailed(result?.failure.map { "\($0)" } ?? "no result")
            }
            devices = result.devices
            speed.add(Double(result.devices) * result.simulatedSeconds / 3600 / seconds)
        }
        // The baseline is the real world: every device living one hour per hour.
        let realTime = Double(devices) / 3600
        return [
            Figure(
                name: "simulation speed (default scenario)", value: speed.median, unit: "device-hours/s", baseline: realTime,
                baselineName: "real time for the same \(devices) devices", ratio: speed.median / realTime,
                target: "≥ \(Int(Self.target)) device-hours/s", met: speed.median >= Self.target, spread: speed.spread)
        ]
    }
}
