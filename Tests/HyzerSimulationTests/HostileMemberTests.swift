import HyzerSimulation
import Testing

/// A hostile member (docs/simulation.md, "A hostile member"): one phone sends crafted bundles on
/// its live connections — made-up identities, out-of-range numbers, bundles cut short — and puts
/// crafted files in the shared folder, and
/// every honest replica refuses them or keeps them within the junk caps, never traps, never
/// shows them, and converges on every device's ops, views and oracles included.
@Suite struct HostileMemberTests {
    @Test(arguments: [1, 2] as [UInt64])
    func honestReplicasRefuseAndBoundTheJunkAndConverge(seed: UInt64) throws {
        let line = "hyzer-peer simulate --seed \(seed) --swarm --profile quick --laptop --set hostileMember=1"
        let request = try #require(SimulationRequest(commandLine: line))
        #expect(request.commandLine == line)
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.configuration.hostileMember)
        #expect(result.coverage[.hostileBundlesSent] > 0)
        #expect(result.coverage[.junkRefused] > 0)
        #expect(result.coverage[.junkPending] > 0)
        // Its crafted files in the shared folder are written and refused (or ignored) by the
        // honest folder users, who converge all the same.
        #expect(result.coverage[.hostileFilesWritten] > 0)
        #expect(result.coverage[.hostileFilesRefused] > 0)
    }

    /// Swarms draw the fault for about one seed in four.
    @Test func swarmsDrawTheFaultForSomeSeeds() {
        let drawn = (1...40 as ClosedRange<UInt64>).map { SimulationConfiguration.drawn(seed: $0, profile: .quick) }
        let with = drawn.filter(\.hostileMember).count
        #expect(with >= 4 && with <= 20, "\(with) of 40")
    }
}
