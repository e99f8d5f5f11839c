import Foundation
import HyzerSimulation
import Testing

@Suite struct SmokeTests {
    @Test func oneQuickSeedConverges() {
        let result = Simulation(request: SimulationRequest(seed: 1, swarm: true, profile: .quick)).run()
        print(result.failure?.description ?? "ok", result.simulatedSeconds, result.opsCreated, result.wallSeconds, result.events)
        #expect(result.passed)
    }
}
