import Foundation
import HyzerSimulation
import Testing

/// The CI swarm: dozens of seeds, each drawing its own devices and faults, all of which must
/// stay safe and converge — and between them reach every case the coverage report counts.
@Suite struct SwarmTests {
    static let seeds = 50

    @Test func quickSwarmConvergesAndCoversEveryFaultKind() throws {
        let runs = Self.runConcurrently(seeds: 1...UInt64(Self.seeds))
        let outcome = Swarm.Outcome(runs: runs)
        for run in runs where !run.passed {
            Issue.record("\(run.failure?.description ?? "seed \(run.seed) did not converge")")
        }
        #expect(outcome.summary.passed == Self.seeds)
        #expect(outcome.summary.missing.isEmpty, "cases no seed reached: \(outcome.summary.missing)")
        let coverage = outcome.summary.coverage
        for required: Coverage.Case in [
            .offlinePeriods, .partitions, .oneWayPartitions, .connectionsOpened, .connectionsReset, .framesRetransmitted,
            .streamStalls, .framesHeld, .peersDeclaredDead, .dialsFailed, .deltasSent,
            .crashes, .crashesMidWrite, .crashesMidIngest, .crashesMidFolderSync, .unsyncedWritesDropped, .writesTorn, .readsFailed,
            .backwardClockSteps, .watchScores,
            .filesHalfWrittenRead, .filesDuplicated, .filesOutOfOrder, .silentMerges, .discrepancies, .resolutions,
            .exactTieCourseEdits, .roundsFinishedWhileOffline, .gapsKeptPending,
        ] {
            #expect(coverage[required] > 0, "the swarm never reached \(required)")
        }
        #expect(
            runs.contains {
                $0.configuration.watches > 0 && $0.configuration.network.offlinePeriods > 0 && $0.configuration.clocks.maxSkewSeconds > 0
            })
        #expect(runs.allSatisfy { $0.reproduction == "hyzer-peer simulate --seed \($0.seed) --swarm --profile quick" })
    }

    /// Runs the seeds on two threads; each run is independent and single-threaded.
    static func runConcurrently(seeds: ClosedRange<UInt64>) -> [SimulationResult] {
        let collected = Collected()
        let all = Array(seeds)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for seed in all.enumerated().filter({ $0.offset % 2 == worker }).map(\.element) {
                collected.add(Simulation(request: SimulationRequest(seed: seed, swarm: true, profile: .quick)).run())
            }
        }
        return collected.results.sorted { $0.seed < $1.seed }
    }
}

/// Results gathered from several threads.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SimulationResult] = []

    func add(_ result: SimulationResult) {
        lock.lock()
        stored.append(result)
        lock.unlock()
    }

    var results: [SimulationResult] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
