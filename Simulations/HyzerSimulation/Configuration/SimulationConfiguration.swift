/// Everything that shapes one run besides its seed's random choices: the devices, how long the
/// players play, and every fault knob. `standard(seed:)` is the scenario `hyzer-peer simulate`
/// runs; a swarm draws one per seed (`drawn(seed:profile:)`).
public struct SimulationConfiguration: Hashable, Sendable, Codable {
    /// Drives every random choice of the run.
    public var seed: UInt64
    /// Phones, each owned by its own player.
    public var phones = 4
    /// Watches, each paired with its own phone: a watch reaches only that phone, and only while
    /// in range.
    public var watches = 0
    /// A laptop: it syncs through the shared folder, and in a `hub` world it is also the
    /// tournament director's, which every phone dials.
    public var laptop = true
    /// Whether the phones reach each other only through the laptop, which each dials over the
    /// course's Wi-Fi (a tournament director's `serve`); otherwise each phone dials every phone
    /// after it and the laptop has only the folder.
    public var hub = false
    /// Players in all, four to a card, those without a phone of their own scored as guests (a
    /// tournament); nil: one player a phone, four phones to a card, and a guest a card when
    /// `workload.guests`.
    public var players: Int?
    /// Simulated hours the rounds take; holes are spread evenly over them.
    public var hours = 3.0
    /// Holes per round: 18 on a seeded course, fewer on a course the organizer adds.
    public var holes = 18
    /// Whether every phone also syncs through the folder (otherwise only one phone bridges it
    /// to the laptop).
    public var phonesUseFolder = true
    /// Direct links.
    public var network = NetworkSettings()
    /// The shared folder.
    public var folder = FolderSettings()
    /// Crashes and restarts.
    public var crashes = CrashSettings()
    /// Device clocks.
    public var clocks = ClockSettings()
    /// What the players do.
    public var workload = WorkloadSettings()
    /// Whether one phone is a hostile member: it holds the group secret and its own key, plays
    /// its part honestly, and sends on its live connections crafted bundles besides its deltas
    /// (made-up identities, out-of-range numbers, bundles cut short) that honest replicas must
    /// refuse, keep bounded and never show.
    public var hostileMember = false
    /// Whether the organizer removes one phone from the group mid-round (docs/security.md,
    /// "Removing a member"): the phone plays on, writes, dials and syncs the folder as a lost
    /// phone would; none of its ops after the removal may count anywhere, and the others must
    /// converge without it.
    public var removedMember = false
    /// Whether one phone is restored from an old backup mid-round (docs/security.md, "Forks,
    /// clocks and junk"): its store is copied while closed and later put back; when it writes
    /// before it hears its newer ops back, its author's log forks, and every replica must freeze
    /// the author at the same point while the phone goes on under a new key.
    public var restoredBackup = false
    /// Whether one phone's store is copied (while closed) to an extra device that then writes
    /// with the same key: the author's log forks; both copies must learn it, refuse to write, and
    /// go on under new keys.
    public var copiedStore = false
    /// Simulated minutes after the heal within which every replica must have converged.
    public var convergenceBoundMinutes = 60

    /// The default scenario's knobs, for `seed`.
    public init(seed: UInt64) {
        self.seed = seed
    }

    /// The default scenario: four phones and a laptop, 18 holes over three hours, every fault
    /// kind on at moderate rates.
    public static func standard(seed: UInt64) -> SimulationConfiguration {
        SimulationConfiguration(seed: seed)
    }

    /// The number of devices.
    public var deviceCount: Int { phones + watches + (laptop ? 1 : 0) }

    /// Cards: four players to a card, or four phones to a card without `players`.
    public var cardCount: Int { ((players ?? phones) + 3) / 4 }

    /// Workload length in milliseconds.
    var workloadMilliseconds: UInt64 { UInt64(hours * 3_600_000) }

    /// Checks the knobs; returns what is wrong, or nil.
    public func problem() -> String? {
        let mostPhones = hub ? 150 : 12
        if phones < 1 || phones > mostPhones { return "--phones must be 1 to \(mostPhones)" }
        if watches < 0 || watches > phones { return "there are at most as many watches as phones" }
        if hub, !laptop { return "a hub world needs its laptop" }
        if let players, players < phones || players > 4 * phones {
            return "players must be at least the phones and at most four a phone (a card needs a phone)"
        }
        if holes < 1 || holes > 18 { return "--holes must be 1 to 18" }
        if !(hours >= 0.05 && hours <= 12) { return "--hours must be 0.05 to 12" }
        if network.maxOfflineMinutes > 240 { return "offline periods last at most four hours" }
        return nil
    }
}
