import Foundation
import HyzerDomain
import HyzerSimulation
import Testing

/// The harness has teeth: each planted bug is found by the quick swarm within a few seeds, and
/// the failure carries the line that reproduces it.
@Suite struct PlantedBugTests {
    /// At most this many seeds to find each bug.
    static let budget: UInt64 = 8

    struct Case: Sendable, CustomStringConvertible {
        let bug: PlantedBug
        let name: String
        let kind: SimulationFailure.Kind
        let evidence: String
        var description: String { name }
    }

    static let cases: [Case] = [
        // Views pick the newest event by clock: the oracle sees leaves and disputes vanish.
        Case(bug: .newestTimestampWins, name: "newestTimestampWins", kind: .oracle, evidence: "views show"),
        // Equal-clock course edits fall to arrival order: two replicas show different courses.
        Case(bug: .lastWriterWinsByClockOnly, name: "lastWriterWinsByClockOnly", kind: .convergence, evidence: "course"),
        // Ops that must wait (above a gap, or stamped ahead of the receiver's clock) vanish
        // instead: the check after each ingest finds them neither held nor pending.
        Case(bug: .ingestDropsGaps, name: "ingestDropsGaps", kind: .safety, evidence: "ingest dropped ops"),
        // The phone never relays its watch's ops: the other phones never converge.
        Case(bug: .relayForgetsWatch, name: "relayForgetsWatch", kind: .convergence, evidence: "watch"),
    ]

    @Test(arguments: cases)
    func swarmFindsPlantedBug(_ planted: Case) throws {
        let found: SimulationResult? = PlantedBug.$active.withValue(planted.bug) {
            for seed in 1...Self.budget {
                let result = Simulation(request: SimulationRequest(seed: seed, swarm: true, profile: .quick)).run()
                if !result.passed { return result }
            }
            return nil
        }
        let result = try #require(found, "\(planted.name) survived \(Self.budget) seeds")
        let failure = try #require(result.failure)
        print("\(planted.name) found at seed \(result.seed): \(failure.kind)")
        #expect(failure.kind == planted.kind, "\(failure)")
        #expect(failure.message.contains(planted.evidence), "\(failure)")
        #expect(failure.plantedBugs == [planted.name])
        #expect(failure.reproduction == "hyzer-peer simulate --seed \(result.seed) --swarm --profile quick")
        #expect(failure.description.contains("reproduce: \(failure.reproduction)"))

        // The line reproduces the very same failure, and the same seed passes without the bug.
        let request = try #require(SimulationRequest(commandLine: failure.reproduction))
        let again = PlantedBug.$active.withValue(planted.bug) { Simulation(request: request).run() }
        #expect(again.failure?.message == failure.message)
        #expect(again.traceHash == result.traceHash)
        let clean = Simulation(request: request).run()
        #expect(clean.passed, "\(clean.failure?.description ?? "")")

        // Shrinking finds a smaller world that fails the same way, and its line reproduces it.
        let shrunk = PlantedBug.$active.withValue(planted.bug) {
            Shrinker(budget: Self.shrinkBudget).shrink(result, request: request, failure: failure)
        }
        print("\(planted.name) shrunk in \(shrunk.runs) runs from \(shrunk.originalSize) to \(shrunk.shrunkSize)")
        #expect(shrunk.failure.kind == failure.kind)
        #expect(shrunk.shrunkSize.isSmaller(than: shrunk.originalSize), "\(shrunk.shrunkSize) vs \(shrunk.originalSize)")
        let smallest = try #require(SimulationRequest(commandLine: shrunk.reproduction))
        let rerun = PlantedBug.$active.withValue(planted.bug) { Simulation(request: smallest).run() }
        #expect(rerun.failure == shrunk.failure)
    }

    /// Runs one shrink may make in the test suite (a user's `simulate` allows 100).
    static let shrinkBudget = 12
}
