import HyzerDomain

/// A check that failed, with the one command line that reproduces it.
public struct SimulationFailure: Error, Hashable, Sendable, Encodable, CustomStringConvertible {
    /// Which family of checks failed.
    public enum Kind: String, Hashable, Sendable, Encodable {
        /// An invariant that must hold at every instant: no foreign op, no lost acknowledged
        /// op, no op lost by ingest, chains, signatures and views intact.
        case safety
        /// After the heal, the replicas did not reach one op set and identical views in time.
        case convergence
        /// The converged views disagree with what the ops every device created imply.
        case oracle
        /// The same seed gave two different runs.
        case determinism
        /// A replica failed in a way no command may (a storage error, a bundle that fails to
        /// authenticate).
        case unexpected
    }

    /// Which family of checks failed.
    public let kind: Kind
    /// What was wrong, naming the devices, ops and rounds involved.
    public let message: String
    /// Simulated seconds since the run's start.
    public let atSeconds: Double
    /// `hyzer-peer simulate --seed N …`.
    public let reproduction: String
    /// Bugs planted in the scope that ran (tests only); the reproduction needs them too.
    public let plantedBugs: [String]

    /// A failure with every field given.
    public init(kind: Kind, message: String, atSeconds: Double, reproduction: String, plantedBugs: [String] = []) {
        self.kind = kind
        self.message = message
        self.atSeconds = atSeconds
        self.reproduction = reproduction
        self.plantedBugs = plantedBugs
    }

    /// The failure and, on its own line, `reproduce: <the command line>`.
    public var description: String {
        let planted = plantedBugs.isEmpty ? "" : " (planted: \(plantedBugs.joined(separator: ", ")))"
        return "\(kind) failure at \(Int(atSeconds))s: \(message)\(planted)\nreproduce: \(reproduction)"
    }
}
