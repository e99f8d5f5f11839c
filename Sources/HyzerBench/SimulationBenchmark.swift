import Foundation
import HyzerSimulation

/// Simulation speed: simulated device-hours per wall-clock second for the default scenario.
struct SimulationBenchmark {
    let repetitions: Int
    /// Fast enough for `make soak` to run 10,000 seeds in well under two hours (docs/simulation.md).
    static let target = 20.0

    func run() throws -> [Figure] {
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
