import HyzerKit
import HyzerSync

/// The rules the simulated devices run: their replicas' `ReplicaPolicies` and their engines'
/// `AcknowledgementRule`. A run uses `.shipped` unless the simulator's own tests plant a bug
/// by passing a wrong rule (docs/simulation.md, "The harness has teeth"); `planted` names the
/// bugs planted, for the failure's report.
public struct SimulationPolicies: Sendable {
    public var replica: ReplicaPolicies
    public var acknowledgement: AcknowledgementRule
    /// The names of the planted bugs; empty when the rules are the shipped ones.
    public var planted: [String]

    public init(
        replica: ReplicaPolicies = .shipped, acknowledgement: AcknowledgementRule = .whatTheStoreHolds, planted: [String] = []
    ) {
        self.replica = replica
        self.acknowledgement = acknowledgement
        self.planted = planted
    }

    /// The rules that ship.
    public static let shipped = SimulationPolicies()
}
