import Foundation
import HyzerSimulation
import HyzerTestSupport
import Testing

@Suite struct DeterminismTests {
    @Test func sameSeedSameTraceAndDigests() {
        let result = Simulation.checkDeterminism(SimulationRequest(seed: 7, swarm: true, profile: .quick))
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.traceHash.count == 64)
        #expect(result.standingsDigest?.count == 64)
    }

    @Test func differentSeedsDifferentWorlds() {
        let first = Simulation(request: SimulationRequest(seed: 8, swarm: true, profile: .quick)).run()
        let second = Simulation(request: SimulationRequest(seed: 9, swarm: true, profile: .quick)).run()
        #expect(first.traceHash != second.traceHash)
        #expect(first.storeDigest != second.storeDigest)
    }

    /// Swift seeds its hashing per process, so only two processes can show that no dictionary
    /// or set order reaches the run.
    @Test func sameSeedSameTraceAcrossProcesses() throws {
        let store = TemporaryDirectory("sim-cli")
        let runner = BinaryRunner(store: store.url)
        var hashes: [String] = []
        for _ in 0..<2 {
            let run = try runner.run("simulate", "--seed", "11", "--swarm", "--profile", "quick", "--json")
            #expect(run.status == 0, "\(run)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            hashes.append(try #require(json["traceHash"] as? String))
        }
        #expect(hashes[0] == hashes[1])
    }

    @Test func generatorIsXoshiro256StarStar() {
        var random = SimulationRandom(seed: 42)
        #expect(
            [random.next(), random.next(), random.next(), random.next()] == [
                0x1578_0b2e_0c2e_c716, 0x6104_d986_6d11_3a7e, 0xae17_5332_39e4_99a1, 0xecb8_ad47_03b3_60a1,
            ])
    }
}
