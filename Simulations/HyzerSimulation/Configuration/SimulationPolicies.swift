import HyzerKit
import HyzerSync

/// The rules the simulated devices run: their replicas' `ReplicaPolicies` and their engines'
/// `AcknowledgementRule`. A run uses `.shipped` unless the simulator's own tests plant a bug
/// by passing a wrong rule (docs/simulation.md, "The harness has teeth"); `planted` names the
/// bugs planted, for the failure's report.
public struct SimulationPolicies: Sendable {
    public var replica: ReplicaPolicies
    public var acknowledgement: AcknowledgementRule
    /// What the devices' disks do at a sync (docs/simulation.md, "The simulated disk").
    public var disk: DiskRule
    /// The names of the planted bugs; empty when the rules are the shipped ones.
    public var planted: [String]

    public init(
        replica: ReplicaPolicies = .shipped, acknowledgement: AcknowledgementRule = .whatTheStoreHolds, disk: DiskRule = .honest,
        planted: [String] = []
    ) {
        self.replica = replica
        self.acknowledgement = acknowledgement
        self.disk = disk
        self.planted = planted
    }

    /// The rules that ship.
    public static let shipped = SimulationPolicies()
}

/// What a simulated device's disk does at a sync.
public enum DiskRule: Sendable, Hashable {
    /// The synced file's writes become durable.
    case honest
    /// A sync of a `-wal` file is acknowledged and makes nothing durable: a disk that lies
    /// about its cache, for the file SQLite syncs at every commit.
    case ignoresWALSyncs
}
