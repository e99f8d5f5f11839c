import Foundation
import HyzerDomain
import HyzerSimulation
import Testing

@Suite struct DebugDumpTests {
    @Test func dump() throws {
        let env = ProcessInfo.processInfo.environment
        guard let seedText = env["SIM_SEED"], let seed = UInt64(seedText) else { return }
        let swarm = env["SIM_SWARM"] != nil
        let simulation = Simulation(request: SimulationRequest(seed: seed, swarm: swarm, profile: env["SIM_FULL"] != nil ? .full : .quick), keepTrace: true)
        let result = simulation.run()
        try simulation.traceLines.joined(separator: "\n").write(toFile: "/tmp/sim-trace.txt", atomically: true, encoding: .utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(result).write(to: URL(fileURLWithPath: "/tmp/sim-result.json"))
        print("wall", result.wallSeconds, simulation.timings.sorted { $0.key < $1.key })
    }
}

@Suite struct DebugSwarmTests {
    @Test func swarm() throws {
        let env = ProcessInfo.processInfo.environment
        guard let countText = env["SIM_COUNT"], let count = Int(countText) else { return }
        let first = UInt64(env["SIM_FIRST"] ?? "1") ?? 1
        let profile: SwarmProfile = env["SIM_FULL"] != nil ? .full : .quick
        var lines: [String] = []
        let bugs: [String: PlantedBug] = ["a": .newestTimestampWins, "b": .lastWriterWinsByClockOnly, "c": .ingestDropsGaps, "d": .relayForgetsWatch]
        let bug = bugs[env["SIM_BUG"] ?? ""] ?? []
        let outcome = PlantedBug.$active.withValue(bug) { Swarm(template: SimulationRequest(seed: first, swarm: true, profile: profile), firstSeed: first, count: count).run { _, result in
            let line = "seed \(result.seed) \(result.passed ? "ok" : "FAIL") wall=\(String(format: "%.2f", result.wallSeconds)) ops=\(result.opsCreated) dev=\(result.devices) sim=\(Int(result.simulatedSeconds)) heal=\(Int(result.healSeconds)) \(result.failure?.description ?? "")"
            print(line)
            lines.append(line)
        } }
        lines.append("missing: \(outcome.summary.missing)")
        try lines.joined(separator: "\n").write(toFile: "/tmp/sim-swarm.txt", atomically: true, encoding: .utf8)
    }
}
