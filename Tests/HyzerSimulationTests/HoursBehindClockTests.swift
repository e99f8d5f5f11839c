import HyzerSimulation
import Testing

/// A device whose clock runs hours behind from the start (docs/simulation.md, "Clocks hours
/// behind"): its early ops carry stamps hours old, its hybrid clock catches up with what it
/// receives, and every replica still converges on views the oracles agree with.
@Suite struct HoursBehindClockTests {
    @Test(arguments: [1, 2] as [UInt64])
    func aClockHoursBehindStillConverges(seed: UInt64) throws {
        let line = "hyzer-peer simulate --seed \(seed) --swarm --profile quick --set hoursBehind=1"
        let request = try #require(SimulationRequest(commandLine: line))
        #expect(request.commandLine == line)
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.coverage[.hoursBehindClocks] == 1)
    }
}
