import HyzerSimulation
import Testing

/// Clock steps end at the heal like every other fault (docs/simulation.md, "Clock steps end at
/// the heal"). This seed's laptop stepped back twice to 56 minutes slow while phone-0 ran 18
/// minutes fast: the laptop held phone-0's ops until its own clock got within the skew bound,
/// which was past the convergence bound until the heal put the steps right.
@Suite struct ClockStepTests {
    @Test func backwardStepsThatPileUpAreUndoneAtTheHeal() throws {
        let line =
            "hyzer-peer simulate --seed 26 --swarm --phones 2 --hours 0.1 --holes 1 --set oneWayPartitions=0 --set offlinePeriods=0"
            + " --set watchAway=0 --set maxOfflineMinutes=1 --set maxPartitionMinutes=1 --set loss=0 --set stalls=0 --set drift=0"
            + " --set courseEdits=0 --set mistakes=0 --set finishWhileOffline=0 --set guests=0 --set folderFaults=0"
        let request = try #require(SimulationRequest(commandLine: line))
        let result = Simulation(request: request).run()
        #expect(result.coverage[.backwardClockSteps] >= 2)
        #expect(result.passed, "\(result.failure?.description ?? "")")
    }
}
