extension SimulationConfiguration {
    /// `simulate --scenario tournament`: 144 players on 36 cards, 100 phones (two or three a
    /// card; the rest of each card is scored as guests), 20 watches and the director's laptop.
    /// Every phone dials the laptop over the course's Wi-Fi, which loses one packet in ten, has
    /// dead zones and twice drops everyone for about a minute; the laptop also syncs the shared
    /// folder with one phone. Clocks are a phone's (NTP-set, a little skew and drift), a few
    /// devices crash, each round is finished while some device is offline (docs/simulation.md,
    /// "The tournament").
    public static func tournament(seed: UInt64) -> SimulationConfiguration {
        var configuration = SimulationConfiguration(seed: seed)
        configuration.phones = 100
        configuration.watches = 20
        configuration.laptop = true
        configuration.hub = true
        configuration.players = 144
        configuration.hours = 4
        configuration.holes = 18
        configuration.phonesUseFolder = false
        var network = NetworkSettings()
        network.reconnectMaxSeconds = 5
        network.lossRate = 0.1
        network.bandwidthKilobytesPerSecond = 1_000
        network.minDelayMilliseconds = 2
        network.maxDelayMilliseconds = 80
        network.stragglerRate = 0.02
        network.stragglerMaxSeconds = 30
        network.partitions = 1
        network.oneWayPartitions = 0
        network.maxPartitionMinutes = 15
        network.offlinePeriods = 10
        network.maxOfflineMinutes = 30
        network.watchOutOfRangePeriods = 1
        network.outages = 2
        configuration.network = network
        configuration.folder.syncIntervalSeconds = 60
        configuration.crashes.crashesPerDeviceHour = 0.05
        configuration.crashes.maxDowntimeSeconds = 300
        configuration.clocks.maxSkewSeconds = 30
        configuration.clocks.maxDriftPartsPerMillion = 100
        configuration.clocks.stepsPerDevice = 0
        configuration.workload.courseEditsPerHour = 0
        configuration.workload.exactTieCourseEdits = false
        return configuration
    }

    /// A tournament for a swarm: the same devices and players, with the faults' rates drawn
    /// from the seed, and a clock a year ahead, a clock hours behind, a hostile member, a removal,
    /// a restored backup and a copied store each in one seed of four; `quick` plays two or three
    /// holes in 20 to 30 minutes.
    static func drawnTournament(seed: UInt64, profile: SwarmProfile) -> SimulationConfiguration {
        var random = SimulationRandom(seed: seed ^ 0x544F_5552_4E41_4D54)  // "TOURNAMT"
        var configuration = tournament(seed: seed)
        let quick = profile == .quick
        configuration.holes = quick ? random.integer(in: 2...3) : random.chance(0.5) ? 18 : random.integer(in: 6...12)
        configuration.hours = quick ? random.uniform(0.33...0.5) : random.uniform(2...5)
        let minutes = configuration.hours * 60
        configuration.network.lossRate = random.logUniform(0.02...0.25)
        configuration.network.minDelayMilliseconds = random.integer(in: 1...20)
        configuration.network.maxDelayMilliseconds = configuration.network.minDelayMilliseconds + random.integer(in: 0...300)
        configuration.network.stragglerRate = random.chance(0.5) ? random.logUniform(0.005...0.1) : 0
        configuration.network.partitions = random.integer(in: 0...2)
        configuration.network.maxPartitionMinutes = max(1, Int(minutes * random.uniform(0.05...0.3)))
        configuration.network.offlinePeriods = random.integer(in: 0...12)
        configuration.network.maxOfflineMinutes = max(1, Int(minutes * random.uniform(0.1...0.5)))
        configuration.network.watchOutOfRangePeriods = random.integer(in: 0...2)
        configuration.network.outages = random.integer(in: 0...3)
        configuration.folder.syncIntervalSeconds = random.integer(in: 30...300)
        configuration.crashes.crashesPerDeviceHour = random.chance(0.6) ? random.logUniform(0.01...0.5) : 0
        configuration.clocks.maxSkewSeconds = random.integer(in: 0...300)
        configuration.clocks.maxDriftPartsPerMillion = random.integer(in: 0...200)
        configuration.clocks.stepsPerDevice = random.chance(0.3) ? 1 : 0
        configuration.workload.finishWhileOffline = random.chance(0.7)
        configuration.workload.scoringErrorRate = random.logUniform(0.02...0.2)
        drawFaultsOfIdentityAndTime(&random, into: &configuration)
        return configuration
    }
}
