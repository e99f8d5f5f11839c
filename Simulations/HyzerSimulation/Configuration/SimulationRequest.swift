/// What the command line asked for, from which the configuration follows and which prints
/// back as the one line that reproduces a run: `hyzer-peer simulate --seed N …`.
public struct SimulationRequest: Hashable, Sendable, Codable {
    /// Values given explicitly, which win over the scenario's or the swarm's.
    public struct Overrides: Hashable, Sendable, Codable {
        /// `--phones N`.
        public var phones: Int?
        /// `--watch` (at least one watch) or `--no-watch`.
        public var watch: Bool?
        /// `--laptop` or `--no-laptop`.
        public var laptop: Bool?
        /// `--hours H`.
        public var hours: Double?
        /// `--holes N`.
        public var holes: Int?
        /// `--set NAME=VALUE`: fault and workload knobs.
        public var knobs: [Knob: Double]

        /// Overrides of the given values; nil leaves the scenario's or the swarm's.
        public init(
            phones: Int? = nil, watch: Bool? = nil, laptop: Bool? = nil, hours: Double? = nil, holes: Int? = nil,
            knobs: [Knob: Double] = [:]
        ) {
            self.phones = phones
            self.watch = watch
            self.laptop = laptop
            self.hours = hours
            self.holes = holes
            self.knobs = knobs
        }
    }

    /// `--seed N`.
    public var seed: UInt64
    /// `--scenario NAME`: the world a run that is not a swarm's starts from.
    public var scenario: Scenario
    /// Whether the configuration is drawn from the seed, as a swarm does.
    public var swarm: Bool
    /// `--profile`: the ranges a swarm draws from.
    public var profile: SwarmProfile
    /// Values given explicitly.
    public var overrides: Overrides

    /// A request for `seed`.
    public init(
        seed: UInt64, scenario: Scenario = .standard, swarm: Bool = false, profile: SwarmProfile = .full,
        overrides: Overrides = Overrides()
    ) {
        self.seed = seed
        self.scenario = scenario
        self.swarm = swarm
        self.profile = profile
        self.overrides = overrides
    }

    /// The configuration this request runs.
    public var configuration: SimulationConfiguration {
        var configuration = swarm ? scenario.drawn(seed: seed, profile: profile) : scenario.configuration(seed: seed)
        if let phones = overrides.phones { configuration.phones = phones }
        if let watch = overrides.watch { configuration.watches = watch ? max(1, configuration.watches) : 0 }
        if let laptop = overrides.laptop { configuration.laptop = laptop }
        if let hours = overrides.hours {
            configuration.hours = hours
            let minutes = Int(hours * 60)
            configuration.network.maxOfflineMinutes = min(240, configuration.network.maxOfflineMinutes, max(1, minutes * 3 / 4))
            configuration.network.maxPartitionMinutes = min(configuration.network.maxPartitionMinutes, max(1, minutes / 3))
        }
        if let holes = overrides.holes { configuration.holes = holes }
        for knob in Knob.allCases {
            if let value = overrides.knobs[knob] { knob.apply(value, to: &configuration) }
        }
        return configuration
    }

    /// The same request for another seed (a swarm's next run).
    public func with(seed: UInt64) -> SimulationRequest {
        var copy = self
        copy.seed = seed
        return copy
    }

    /// The request a reproduction line names (`commandLine`'s inverse); nil for anything else.
    /// Output flags (`--json`, `--check-determinism`, `--trace`) are accepted and change nothing.
    public init?(commandLine: String) {
        var words = commandLine.split(separator: " ").map(String.init)[...]
        guard words.popFirst() == "hyzer-peer", words.popFirst() == "simulate" else { return nil }
        self.init(seed: 1)
        while let word = words.popFirst() {
            switch word {
            case "--seed":
                guard let value = words.popFirst().flatMap({ UInt64($0) }) else { return nil }
                seed = value
            case "--swarm": swarm = true
            case "--scenario":
                guard let value = words.popFirst().flatMap({ Scenario(rawValue: $0) }) else { return nil }
                scenario = value
            case "--profile":
                guard let value = words.popFirst().flatMap({ SwarmProfile(rawValue: $0) }) else { return nil }
                profile = value
            case "--phones":
                guard let value = words.popFirst().flatMap({ Int($0) }) else { return nil }
                overrides.phones = value
            case "--holes":
                guard let value = words.popFirst().flatMap({ Int($0) }) else { return nil }
                overrides.holes = value
            case "--hours":
                guard let value = words.popFirst().flatMap({ Double($0) }) else { return nil }
                overrides.hours = value
            case "--watch", "--no-watch": overrides.watch = word == "--watch"
            case "--laptop", "--no-laptop": overrides.laptop = word == "--laptop"
            case "--set":
                guard let (knob, value) = words.popFirst().flatMap(Knob.parse) else { return nil }
                overrides.knobs[knob] = value
            case "--json", "--check-determinism", "--trace", "--no-shrink": break
            default: return nil
            }
        }
    }

    /// The command that runs exactly this again.
    public var commandLine: String {
        var words = ["hyzer-peer", "simulate", "--seed", String(seed)]
        if scenario != .standard { words += ["--scenario", scenario.rawValue] }
        if swarm {
            words.append("--swarm")
            if profile != .full { words += ["--profile", profile.rawValue] }
        }
        if let phones = overrides.phones { words += ["--phones", String(phones)] }
        if let watch = overrides.watch { words.append(watch ? "--watch" : "--no-watch") }
        if let laptop = overrides.laptop { words.append(laptop ? "--laptop" : "--no-laptop") }
        if let hours = overrides.hours { words += ["--hours", String(hours)] }
        if let holes = overrides.holes { words += ["--holes", String(holes)] }
        for knob in Knob.allCases {
            if let value = overrides.knobs[knob] { words += ["--set", knob.argument(value)] }
        }
        return words.joined(separator: " ")
    }
}
