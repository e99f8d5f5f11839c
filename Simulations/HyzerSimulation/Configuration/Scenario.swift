/// A named world for `hyzer-peer simulate --scenario NAME` (a swarm draws its own instead).
public enum Scenario: String, CaseIterable, Hashable, Sendable, Codable {
    /// Four phones and a laptop, 18 holes over three hours, every fault kind at moderate rates.
    case standard
    /// Two phones on a clean network (5–150 ms) and one partition of 30 s to 10 minutes, no
    /// other fault: the dead-peer bound and the reconnection after the partition, to watch with
    /// `--trace`.
    case partition
    /// A tournament: 144 players on 36 cards, 100 phones, 20 watches and the director's laptop,
    /// every phone dialing the laptop over a Wi-Fi that loses one packet in ten and sometimes
    /// drops everyone for a minute; the laptop also syncs the folder (docs/simulation.md,
    /// "The tournament").
    case tournament

    /// The configuration of this scenario for `seed`.
    public func configuration(seed: UInt64) -> SimulationConfiguration {
        switch self {
        case .standard:
            return .standard(seed: seed)
        case .tournament:
            return .tournament(seed: seed)
        case .partition:
            var configuration = SimulationConfiguration(seed: seed)
            configuration.phones = 2
            configuration.laptop = false
            configuration.phonesUseFolder = false
            configuration.hours = 1
            configuration.holes = 6
            var network = NetworkSettings()
            network.lossRate = 0
            network.minDelayMilliseconds = 5
            network.maxDelayMilliseconds = 150
            network.stragglerRate = 0
            network.partitions = 1
            network.oneWayPartitions = 0
            network.maxPartitionMinutes = 10
            network.offlinePeriods = 0
            network.watchOutOfRangePeriods = 0
            configuration.network = network
            configuration.crashes.crashesPerDeviceHour = 0
            configuration.clocks.stepsPerDevice = 0
            configuration.workload.finishWhileOffline = false
            return configuration
        }
    }

    /// The configuration a swarm draws for `seed` in this world: a tournament's devices with
    /// drawn faults for `tournament`, anything for the others.
    public func drawn(seed: UInt64, profile: SwarmProfile) -> SimulationConfiguration {
        self == .tournament ? .drawnTournament(seed: seed, profile: profile) : .drawn(seed: seed, profile: profile)
    }
}
