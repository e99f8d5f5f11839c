import HyzerSimulation
import Testing

@Suite struct WorldModelTests {
    @Test func clockModelSkewsDriftsAndSteps() {
        let origin: UInt64 = 1_000_000
        let model = ClockModel(
            origin: origin, skewMilliseconds: -5_000, driftPartsPerMillion: 1_000,
            steps: [.init(at: origin + 20_000, deltaMilliseconds: -60_000), .init(at: origin + 10_000, deltaMilliseconds: 2_000)])
        #expect(model.reading(at: origin) == origin - 5_000)
        #expect(model.reading(at: origin + 10_000) == origin + 10_000 - 5_000 + 10 + 2_000)
        #expect(model.reading(at: origin + 20_000) == origin + 20_000 - 5_000 + 20 + 2_000 - 60_000)
        #expect(ClockModel.accurate(origin: origin).reading(at: origin + 7) == origin + 7)
    }

    @Test func eventsAtOneInstantKeepTheirOrder() {
        var queue = EventQueue<String>()
        queue.schedule("late", at: 20)
        for name in ["a", "b", "c", "d"] { queue.schedule(name, at: 10) }
        queue.schedule("early", at: 5)
        var order: [String] = []
        while let (_, event) = queue.pop() { order.append(event) }
        #expect(order == ["early", "a", "b", "c", "d", "late"])
    }

    @Test func reproductionLinesRoundTrip() throws {
        let request = SimulationRequest(
            seed: 42, swarm: true, profile: .quick, overrides: .init(phones: 3, watch: true, laptop: false, hours: 1.5, holes: 9))
        #expect(
            request.commandLine
                == "hyzer-peer simulate --seed 42 --swarm --profile quick --phones 3 --watch --no-laptop --hours 1.5 --holes 9")
        #expect(SimulationRequest(commandLine: request.commandLine) == request)
        #expect(SimulationRequest(commandLine: "hyzer-peer simulate --seed 7").map(\.configuration) == .standard(seed: 7))
        #expect(SimulationRequest(commandLine: "hyzer-peer simulate --bogus") == nil)
    }

    @Test func swarmConfigurationsDifferWildly() {
        let configurations = (1...40).map { SimulationConfiguration.drawn(seed: $0, profile: .full) }
        #expect(Set(configurations.map(\.phones)).count >= 4)
        #expect(configurations.contains { $0.network.lossRate == 0 } && configurations.contains { $0.network.lossRate > 0.1 })
        #expect(
            configurations.contains { $0.crashes.crashesPerDeviceHour == 0 }
                && configurations.contains { $0.crashes.crashesPerDeviceHour > 1 })
        #expect(configurations.contains { $0.network.maxOfflineMinutes > 120 })
        #expect(configurations.allSatisfy { $0.problem() == nil })
    }
}
