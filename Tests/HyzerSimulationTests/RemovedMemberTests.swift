import HyzerSimulation
import Testing

/// The organizer removes a phone mid-run (docs/simulation.md, "A removed member"): connections
/// open at the removal are cut by the member that learns of it (`SyncFailure.peerRemoved`: the
/// driver sends the removed phone nothing more), later ones are refused, and every other device
/// converges. Finished rounds are also signed for over live connections, as `serve` signs them.
@Suite struct RemovedMemberTests {
    @Test func aRemovalReachesOpenConnectionsAndLiveFinishesAreSigned() throws {
        let line = "hyzer-peer simulate --seed 1 --swarm --profile quick --set removedMember=1"
        let request = try #require(SimulationRequest(commandLine: line))
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.coverage[.membersRemoved] == 1)
        #expect(result.coverage[.removedWhileConnected] > 0, "no connection was open when the removal arrived")
        #expect(result.coverage[.removedMemberRefused] > 0)
        #expect(result.coverage[.receiptsAfterLiveFinish] > 0, "no device signed a receipt when a finish arrived live")
    }
}
