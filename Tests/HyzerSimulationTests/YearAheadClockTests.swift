import HyzerSimulation
import Testing

/// A phone whose clock jumps a year ahead part way through (docs/simulation.md, "Clocks a year
/// ahead"): every other replica holds the ops it stamps from then on aside, never applies them,
/// and still converges with the others on everything else, views and oracles included.
@Suite struct YearAheadClockTests {
    @Test(arguments: [2, 3] as [UInt64])
    func opsStampedAYearAheadAreHeldAsideAndTheRestConverges(seed: UInt64) throws {
        let line = "hyzer-peer simulate --seed \(seed) --swarm --profile quick --set yearAhead=1"
        let request = try #require(SimulationRequest(commandLine: line))
        #expect(request.commandLine == line)
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.configuration.clocks.yearAheadClock)
        #expect(result.coverage[.yearAheadClocks] == 1)
        #expect(result.coverage[.yearAheadOpsHeld] > 0, "the phone wrote nothing after its clock jumped")
        #expect(result.coverage[.segmentsHeld] > 0)
    }

    /// Swarms draw the fault for about one seed in four.
    @Test func swarmsDrawTheFaultForSomeSeeds() {
        let drawn = (1...40 as ClosedRange<UInt64>).map { SimulationConfiguration.drawn(seed: $0, profile: .quick) }
        let with = drawn.filter(\.clocks.yearAheadClock).count
        #expect(with >= 4 && with <= 20, "\(with) of 40")
    }
}
