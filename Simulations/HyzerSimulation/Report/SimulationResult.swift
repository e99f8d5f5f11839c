/// What one run did and found. The JSON of `hyzer-peer simulate --json` (docs/simulation.md).
public struct SimulationResult: Sendable, Encodable {
    /// The seed of the run.
    public let seed: UInt64
    /// Whether every replica reached the same op set and byte-identical views after the heal.
    public let converged: Bool
    /// The rolling BLAKE2b-256 of every event of the run.
    public let traceHash: String
    /// BLAKE2b-256 of the converged views (standings, breakdowns, discrepancies of every round,
    /// courses, players, history) as `JSONEncoder` with sorted keys writes them; nil when the
    /// run did not converge.
    public let standingsDigest: String?
    /// The converged replicas' `digest()`; nil when they did not converge.
    public let storeDigest: String?
    /// Simulated seconds from the start to convergence (or to the failure).
    public let simulatedSeconds: Double
    /// Simulated seconds from the start to the heal.
    public let healSeconds: Double
    /// Ops the devices created (and acknowledged).
    public let opsCreated: Int
    /// Simulated seconds from the last round's finish until every replica showed the final
    /// leaderboard (held the op set it converged on); nil when the run did not converge or no
    /// round was finished.
    public let finalLeaderboardSeconds: Double?
    /// Simulated seconds from the start to the last round's finish; nil when no round was finished.
    public let lastFinishSeconds: Double?
    /// Bytes put on links and into the shared folder.
    public let bytesSent: Int
    /// Trace events.
    public let events: Int
    /// Phones, watch and laptop.
    public let devices: Int
    /// Every knob of the run.
    public let configuration: SimulationConfiguration
    /// How often the interesting cases happened.
    public let coverage: Coverage
    /// The first check that failed, or nil.
    public let failure: SimulationFailure?
    /// The command line that runs this again.
    public let reproduction: String
    /// Wall-clock seconds the run took (not part of the JSON: it differs between runs).
    public let wallSeconds: Double
    /// For a failed run: the smallest world found that fails the same way.
    public var shrunk: Shrinker.Outcome?

    /// The same run, failed with `failure` (a determinism check that found two runs differ).
    public func with(failure: SimulationFailure) -> SimulationResult {
        SimulationResult(
            seed: seed, converged: false, traceHash: traceHash, standingsDigest: nil, storeDigest: nil,
            simulatedSeconds: simulatedSeconds, healSeconds: healSeconds, opsCreated: opsCreated, finalLeaderboardSeconds: nil,
            lastFinishSeconds: lastFinishSeconds, bytesSent: bytesSent, events: events,
            devices: devices, configuration: configuration, coverage: coverage, failure: failure, reproduction: reproduction,
            wallSeconds: wallSeconds)
    }

    /// Whether every check passed.
    public var passed: Bool { failure == nil && converged }

    /// Simulated device-hours: devices × simulated hours.
    public var deviceHours: Double { Double(devices) * simulatedSeconds / 3_600 }

    enum CodingKeys: String, CodingKey {
        case seed, converged, traceHash, standingsDigest, storeDigest, simulatedSeconds, healSeconds, opsCreated,
            finalLeaderboardSeconds, lastFinishSeconds, bytesSent,
            events, devices, configuration, coverage, failure, reproduction, shrunk
    }
}
