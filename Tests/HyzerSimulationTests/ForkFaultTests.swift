import HyzerSimulation
import Testing

/// Stores that fork their author's log (docs/simulation.md, "A restored backup" and "A copied
/// store"): a phone restored from an old backup that writes before it hears its newer ops back,
/// and a store copied to a second device that writes with the same key. Every replica freezes
/// the author at the same sequence, the copies refuse to write and go on under new keys, and
/// the run converges with views the oracles agree with (a forked author's ops count only below
/// the fork point, its successors' fully).
@Suite struct ForkFaultTests {
    @Test func aPhoneRestoredFromABackupForksAndGoesOnUnderANewKey() throws {
        let result = try run("hyzer-peer simulate --seed 4 --swarm --profile quick --set restoredBackup=1")
        #expect(result.configuration.restoredBackup)
        #expect(result.coverage[.backupsRestored] == 1)
        #expect(result.coverage[.forksDetected] == 1)
        #expect(result.coverage[.devicesContinued] >= 1)
    }

    @Test func aStoreCopiedToASecondDeviceForksAndBothCopiesGoOnUnderNewKeys() throws {
        let result = try run("hyzer-peer simulate --seed 23 --swarm --profile quick --set copiedStore=1")
        #expect(result.configuration.copiedStore)
        #expect(result.coverage[.storesCopied] == 1)
        #expect(result.coverage[.forksDetected] == 1)
        #expect(result.coverage[.devicesContinued] == 2)
    }

    /// Swarms draw each fault for about one seed in four.
    @Test func swarmsDrawTheFaultsForSomeSeeds() {
        let drawn = (1...40 as ClosedRange<UInt64>).map { SimulationConfiguration.drawn(seed: $0, profile: .quick) }
        for with in [drawn.filter(\.restoredBackup).count, drawn.filter(\.copiedStore).count] {
            #expect(with >= 4 && with <= 20, "\(with) of 40")
        }
    }

    private func run(_ line: String) throws -> SimulationResult {
        let request = try #require(SimulationRequest(commandLine: line))
        #expect(request.commandLine == line)
        let result = Simulation(request: request).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        return result
    }
}
