import Foundation
import HyzerSimulation
import Testing

/// `simulate --scenario tournament` (docs/simulation.md, "The tournament"): 144 players on 36
/// cards, 100 phones, 20 watches and the director's laptop as the hub, on a lossy Wi-Fi with
/// outages — in the swarm's quick profile, as CI runs it.
@Suite struct TournamentTests {
    @Test func theScenarioIsATournamentAroundTheDirectorsLaptop() throws {
        let configuration = SimulationRequest(seed: 1, scenario: .tournament).configuration
        #expect(configuration.phones == 100 && configuration.watches == 20 && configuration.laptop && configuration.hub)
        #expect(configuration.players == 144 && configuration.deviceCount == 121)
        #expect(configuration.network.lossRate == 0.1 && configuration.network.outages == 2)
        #expect(configuration.problem() == nil)
        var mesh = configuration
        mesh.hub = false
        #expect(mesh.problem() == "--phones must be 1 to 12", "only a hub world holds a tournament's phones")
        let quick = SimulationRequest(seed: 7, scenario: .tournament, swarm: true, profile: .quick)
        #expect(quick.configuration.holes <= 3 && quick.configuration.hours <= 0.5 && quick.configuration.deviceCount == 121)
        #expect(quick.commandLine == "hyzer-peer simulate --seed 7 --scenario tournament --swarm --profile quick")
        #expect(SimulationRequest(commandLine: quick.commandLine) == quick)
    }

    /// One quick tournament: every card's round is played and finished, every device ends with
    /// the same standings, and the run says how long after the last finish that took: within the
    /// product's target of 60 s (docs/performance.md, "A tournament") once every device can be
    /// reached, that is after the last finish or, for a device the swarm kept away over it
    /// (offline, crashed, out of range), after the heal.
    @Test func aQuickTournamentConvergesOnEveryDevice() throws {
        let request = SimulationRequest(seed: 1, scenario: .tournament, swarm: true, profile: .quick)
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "did not converge")")
        #expect(result.devices == 121)
        #expect(result.coverage[.roundsStarted] == 36)
        #expect(result.coverage[.roundsFinished] == 36)
        #expect(result.coverage[.watchScores] > 0)
        #expect(result.coverage[.connectionsOpened] >= 120, "every phone dials the laptop, every watch its phone")
        let leaderboard = try #require(result.finalLeaderboardSeconds)
        let lastFinish = try #require(result.lastFinishSeconds)
        let reachable = max(lastFinish, result.healSeconds)
        #expect(
            lastFinish + leaderboard <= reachable + 60,
            "the final leaderboard came \(leaderboard) s after the last finish at \(lastFinish) s (heal at \(result.healSeconds) s)")
    }
}
