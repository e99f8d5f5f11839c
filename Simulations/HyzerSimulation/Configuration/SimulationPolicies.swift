import HyzerKit
import HyzerSync

/// The rules the simulated devices run: their replicas' `ReplicaPolicies` and their engines'
/// `AcknowledgementRule`. A run uses `.shipped` unless the simulator's own tests plant a bug
/// by passing a wrong rule (docs/simulation.md, "The harness has teeth"); `planted` names the
/// bugs planted, for the failure's report.
public struct SimulationPolicies: Sendable {
    public var replica: ReplicaPolicies
    public var acknowledgement: AcknowledgementRule
    /// Whether the devices' disks make a write durable when it is synced (true), or
    /// acknowledge a sync and keep nothing, as a disk that lies about its cache does.
    public var diskHonoursSync: Bool
    /// The names of the planted bugs; empty when the rules are the shipped ones.
    public var planted: [String]

    public init(
        replica: ReplicaPolicies = .shipped, acknowledgement: AcknowledgementRule = .whatTheStoreHolds, diskHonoursSync: Bool = true,
        planted: [String] = []
    ) {
        self.replica = replica
        self.acknowledgement = acknowledgement
        self.diskHonoursSync = diskHonoursSync
        self.planted = planted
    }

    /// The rules that ship.
    public static let shipped = SimulationPolicies()
}
