import Foundation
import HyzerDomain
import HyzerKit
import HyzerSimulation
import HyzerSync
import Testing

/// The harness has teeth: each planted bug is found by the quick swarm within a few seeds, and
/// the failure carries the line that reproduces it.
@Suite struct PlantedBugTests {
    /// At most this many seeds to find each bug.
    static let budget: UInt64 = 8

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let kind: SimulationFailure.Kind
        let evidence: String
        let policies: SimulationPolicies
        var description: String { name }

        init(_ name: String, _ kind: SimulationFailure.Kind, evidence: String, replica: ReplicaPolicies = .shipped) {
            self.init(name, kind, evidence: evidence, policies: SimulationPolicies(replica: replica, planted: [name]))
        }

        init(_ name: String, _ kind: SimulationFailure.Kind, evidence: String, policies: SimulationPolicies) {
            self.name = name
            self.kind = kind
            self.evidence = evidence
            self.policies = policies
        }
    }

    static let cases: [Case] = [
        // Views pick the newest event by clock: the oracle sees leaves and disputes vanish.
        Case("newestTimestampWins", .oracle, evidence: "views show", replica: ReplicaPolicies(merge: PlantedRules.newestTimestampWins)),
        // Equal-clock course edits fall to arrival order: two replicas show different courses.
        Case(
            "lastWriterWinsByClockOnly", .convergence, evidence: "course",
            replica: ReplicaPolicies(registers: PlantedRules.lastWriterWinsByClockOnly)),
        // Ops that must wait (above a gap, or stamped ahead of the receiver's clock) vanish
        // instead: the check after each ingest finds them neither held nor pending.
        Case("ingestDropsGaps", .safety, evidence: "ingest dropped ops", replica: ReplicaPolicies(pending: PlantedRules.ingestDropsGaps)),
        // The phone never relays its watch's ops: the other phones never converge.
        Case("relayForgetsWatch", .convergence, evidence: "watch", replica: ReplicaPolicies(delta: PlantedRules.relayForgetsWatch)),
        // The engine's `have` claims what the peer sent, ops its store holds aside included:
        // the peer's belief outruns the store.
        Case(
            "acknowledgesWhatArrived", .safety, evidence: "its store does not hold",
            policies: SimulationPolicies(acknowledgement: PlantedRules.acknowledgesWhatArrived, planted: ["acknowledgesWhatArrived"])),
    ]

    @Test(arguments: cases)
    func swarmFindsPlantedBug(_ planted: Case) throws {
        var found: SimulationResult?
        for seed in 1...Self.budget {
            let result = Simulation(request: SimulationRequest(seed: seed, swarm: true, profile: .quick), policies: planted.policies).run()
            if !result.passed {
                found = result
                break
            }
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
        let again = Simulation(request: request, policies: planted.policies).run()
        #expect(again.failure?.message == failure.message)
        #expect(again.traceHash == result.traceHash)
        let clean = Simulation(request: request).run()
        #expect(clean.passed, "\(clean.failure?.description ?? "")")

        // Shrinking finds a smaller world that fails the same way, and its line reproduces it.
        let shrunk = Shrinker(budget: Self.shrinkBudget, policies: planted.policies).shrink(result, request: request, failure: failure)
        print("\(planted.name) shrunk in \(shrunk.runs) runs from \(shrunk.originalSize) to \(shrunk.shrunkSize)")
        #expect(shrunk.failure.kind == failure.kind)
        #expect(shrunk.shrunkSize.isSmaller(than: shrunk.originalSize), "\(shrunk.shrunkSize) vs \(shrunk.originalSize)")
        let smallest = try #require(SimulationRequest(commandLine: shrunk.reproduction))
        let rerun = Simulation(request: smallest, policies: planted.policies).run()
        #expect(rerun.failure == shrunk.failure)
    }

    /// Runs one shrink may make in the test suite (a user's `simulate` allows 100).
    static let shrinkBudget = 12
}

/// The planted bugs: a wrong rule where a shipped one belongs. They live here, in the
/// simulator's own tests; nothing that ships can reach them.
enum PlantedRules {
    /// The current score is the newest event by the clock, whatever superseded what.
    static let newestTimestampWins = MergeRule { valid, _ in
        struct Hole: Hashable {
            let player: ParticipantID
            let hole: Int
        }
        var newest: [Hole: ScoreEvent] = [:]
        for event in valid {
            let hole = Hole(player: event.playerID, hole: event.holeNumber)
            if newest[hole].map({ $0.createdAt <= event.createdAt }) ?? true { newest[hole] = event }
        }
        return valid.filter { newest[Hole(player: $0.playerID, hole: $0.holeNumber)] == $0 }
    }

    /// Last-writer-wins compares the clocks alone (a stamp's first 12 bytes), so equal clocks
    /// fall to arrival order.
    static let lastWriterWinsByClockOnly = RegisterRule { incoming, held in
        !incoming.prefix(12).lexicographicallyPrecedes(held.prefix(12))
    }

    /// Ingest drops the ops it cannot apply yet instead of keeping them pending (or held).
    static let ingestDropsGaps = PendingRule { _ in false }

    /// Deltas leave out the ops of watches other than the sender: relays forget the watch.
    static let relayForgetsWatch = DeltaRule { author, local, kind in author == local || kind(author) != .watch }

    /// `have` reports what the peer's bundle brought, not what the store holds: ops kept
    /// aside (held until the clock gets there, pending above a gap) are claimed as held.
    static let acknowledgesWhatArrived = AcknowledgementRule { stored, received in
        var claimed = stored
        claimed.formMaximum(received)
        return claimed
    }
}
