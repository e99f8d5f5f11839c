/// The ranges a swarm draws configurations from.
public enum SwarmProfile: String, CaseIterable, Hashable, Sendable, Codable {
    /// Anything from two phones for half an hour to six phones, a watch and a laptop for five
    /// hours with four-hour offline periods: `make soak` and `simulate --seeds K`.
    case full
    /// Short rounds of a few holes, cheap enough for the test suite to run dozens of seeds
    /// with every fault kind still turned on somewhere.
    case quick
}

extension SimulationConfiguration {
    /// The configuration a swarm draws for `seed`: device count, which fault kinds are on,
    /// and rates that differ by orders of magnitude from one seed to the next.
    public static func drawn(seed: UInt64, profile: SwarmProfile) -> SimulationConfiguration {
        var random = SimulationRandom(seed: seed ^ 0x5357_4152_4D5F_4346)  // "SWARM_CF"
        var configuration = SimulationConfiguration(seed: seed)
        let quick = profile == .quick
        configuration.phones = random.integer(in: quick ? 2...4 : 2...6)
        configuration.watches = random.chance(quick ? 0.7 : 0.6) ? 1 : 0
        configuration.laptop = random.chance(quick ? 0.4 : 0.5)
        configuration.hours = quick ? random.uniform(0.3...0.8) : random.logUniform(0.5...5)
        configuration.holes = quick ? random.integer(in: 3...5) : (random.chance(0.5) ? 18 : random.integer(in: 3...12))
        configuration.phonesUseFolder = random.chance(0.5)
        let minutes = configuration.hours * 60
        configuration.network = drawNetwork(&random, quick: quick, minutes: minutes)
        configuration.folder = drawFolder(&random, quick: quick)
        configuration.crashes.crashesPerDeviceHour = random.chance(0.65) ? random.logUniform(0.1...(quick ? 6 : 3)) : 0
        configuration.crashes.maxDowntimeSeconds = random.integer(in: 5...900)
        configuration.clocks = drawClocks(&random)
        configuration.workload = drawWorkload(&random, quick: quick)
        // Drawn last, so that the draws before it stay those of earlier builds.
        drawFaultsOfIdentityAndTime(&random, into: &configuration)
        configuration.network.outages = random.chance(0.3) ? random.integer(in: 1...2) : 0
        configuration.crashes.tornWriteRate = random.chance(0.8) ? random.uniform(0.2...1) : 0
        configuration.crashes.failedReadRate = random.chance(0.8) ? random.uniform(0.1...0.6) : 0
        return configuration
    }

    /// A clock a year ahead, a clock hours behind, a hostile member, a removal, a restored
    /// backup and a copied store: one seed in four each, in every swarm (the tournament's too).
    static func drawFaultsOfIdentityAndTime(_ random: inout SimulationRandom, into configuration: inout SimulationConfiguration) {
        configuration.clocks.yearAheadClock = random.chance(0.25)
        configuration.clocks.hoursBehindClock = random.chance(0.25)
        configuration.hostileMember = random.chance(0.25)
        configuration.removedMember = random.chance(0.25)
        configuration.restoredBackup = random.chance(0.25)
        configuration.copiedStore = random.chance(0.25)
    }

    private static func drawNetwork(_ random: inout SimulationRandom, quick: Bool, minutes: Double) -> NetworkSettings {
        var network = NetworkSettings()
        network.reconnectMaxSeconds = random.integer(in: 1...10)
        network.lossRate = random.chance(0.75) ? random.logUniform(0.005...0.4) : 0
        network.bandwidthKilobytesPerSecond = Int(random.logUniform(20...5_000))
        network.minDelayMilliseconds = random.integer(in: 1...200)
        // One-way delays of a live connection: Wi-Fi and Bluetooth, up to a second; slower paths are stalls.
        network.maxDelayMilliseconds = network.minDelayMilliseconds + random.integer(in: 0...1_000)
        network.stragglerRate = random.chance(0.6) ? random.logUniform(0.01...0.3) : 0
        network.stragglerMaxSeconds = random.integer(in: 5...300)
        network.partitions = random.chance(0.6) ? random.integer(in: 1...3) : 0
        network.oneWayPartitions = random.chance(0.5) ? random.integer(in: 1...2) : 0
        network.maxPartitionMinutes = max(1, Int(minutes * random.uniform(0.05...0.5)))
        network.offlinePeriods = random.chance(0.7) ? random.integer(in: 1...3) : 0
        network.maxOfflineMinutes = min(240, max(1, Int(minutes * random.uniform(0.1...0.9))))
        network.watchOutOfRangePeriods = random.integer(in: 0...3)
        return network
    }

    private static func drawFolder(_ random: inout SimulationRandom, quick: Bool) -> FolderSettings {
        var folder = FolderSettings()
        folder.syncIntervalSeconds = random.integer(in: quick ? 60...300 : 30...900)
        folder.minDelaySeconds = random.integer(in: 0...10)
        folder.maxDelaySeconds = folder.minDelaySeconds + random.integer(in: 0...300)
        folder.lateRate = random.chance(0.5) ? random.logUniform(0.01...0.3) : 0
        folder.lateMaxMinutes = random.integer(in: 5...60)
        folder.partialRate = random.chance(0.6) ? random.logUniform(0.01...0.5) : 0
        folder.duplicateRate = random.chance(0.6) ? random.logUniform(0.01...0.5) : 0
        folder.temporaryFileRate = random.chance(0.5) ? random.uniform(0...0.5) : 0
        return folder
    }

    private static func drawClocks(_ random: inout SimulationRandom) -> ClockSettings {
        var clocks = ClockSettings()
        clocks.maxSkewSeconds = random.chance(0.8) ? random.integer(in: 1...1_200) : 0
        clocks.maxDriftPartsPerMillion = random.chance(0.6) ? random.integer(in: 1...1_000) : 0
        clocks.stepsPerDevice = random.chance(0.7) ? random.integer(in: 1...3) : 0
        clocks.maxStepSeconds = random.integer(in: 1...1_800)
        clocks.backwardShare = random.uniform(0.3...1)
        return clocks
    }

    private static func drawWorkload(_ random: inout SimulationRandom, quick: Bool) -> WorkloadSettings {
        var workload = WorkloadSettings()
        workload.scoringErrorRate = random.logUniform(0.02...0.4)
        workload.scorekeeperRate = random.uniform(0.1...1)
        workload.watchScoreRate = random.uniform(0.2...1)
        workload.correctionRate = random.uniform(0...1)
        workload.courseEditsPerHour = random.chance(0.7) ? random.uniform(0.5...(quick ? 6 : 3)) : 0
        workload.guests = random.chance(0.5)
        workload.finishWhileOffline = random.chance(0.6)
        workload.sameMillisecondRate = random.uniform(0...0.2)
        workload.reviewEveryHoles = random.integer(in: 1...6)
        workload.exactTieCourseEdits = random.chance(0.7)
        return workload
    }
}
