/// The direct links' faults (phone↔phone, phone↔watch). Links are TCP connections carrying the
/// shipped sync engine (docs/simulation.md): ordered, reliable byte streams, so the network cannot
/// lose, duplicate or reorder a frame the engine sees; it delays frames, stalls a stream, resets
/// a connection, and cuts devices off. A rate of 0 or a count of 0 switches a fault kind off.
public struct NetworkSettings: Hashable, Sendable, Codable {
    /// The longest pause between two attempts to reconnect (backoff doubles from 100 ms to this).
    public var reconnectMaxSeconds: Int = 2
    /// Probability that a frame's packet is lost. TCP retransmits it (the frame and those behind
    /// it arrive late); one loss in eight resets the connection instead.
    public var lossRate = 0.05
    /// The stream's bandwidth.
    public var bandwidthKilobytesPerSecond = 500
    /// The usual one-way delay.
    public var minDelayMilliseconds = 20
    /// The longest usual delay.
    public var maxDelayMilliseconds = 800
    /// Probability, per ten frames, that a stream stalls (a slow path, a radio gap) for up to
    /// `stragglerMaxSeconds`; longer than the engine's dead-peer bound, the peer is declared dead.
    public var stragglerRate = 0.05
    /// The longest stall.
    public var stragglerMaxSeconds = 90
    /// Symmetric partitions: the phones split into two sides that cannot talk.
    public var partitions = 1
    /// One-way partitions: frames from one device to another are held, the other way works.
    public var oneWayPartitions = 1
    /// The longest partition.
    public var maxPartitionMinutes = 30
    /// Offline periods: a device has no network and no folder (flight mode, a dead zone).
    public var offlinePeriods = 2
    /// At most four hours.
    public var maxOfflineMinutes = 90
    /// Periods when each watch is out of its phone's range.
    public var watchOutOfRangePeriods = 2
    /// Wi-Fi outages: every link but a watch's (Bluetooth) is down for 30 to 90 seconds at once
    /// (a course's access point restarting).
    public var outages = 0

    /// The default scenario's values.
    public init() {}
}

/// The shared folder's faults: what a folder-sync tool (Syncthing, Dropbox) does to files.
public struct FolderSettings: Hashable, Sendable, Codable {
    /// Mean seconds between two folder syncs of one device.
    public var syncIntervalSeconds: Int = 300
    /// The usual time a file takes to reach another device.
    public var minDelaySeconds = 2
    /// The longest usual delay.
    public var maxDelaySeconds = 120
    /// Probability that a file arrives late: up to `lateMaxMinutes`.
    public var lateRate = 0.05
    /// The longest extra delay of a late file.
    public var lateMaxMinutes = 30
    /// Probability that a device first sees a prefix of a file under its final name.
    public var partialRate = 0.05
    /// Probability that a file is delivered a second time (same bytes, a new modification time).
    public var duplicateRate = 0.05
    /// Probability that a device sees a writer's temporary file before the real one.
    public var temporaryFileRate = 0.1

    /// The default scenario's values.
    public init() {}
}

/// Crashes: a device's power cut between operations, mid-write (at one of a command's writes
/// or syncs), mid-ingest (only some segments of a message are ingested) or mid-folder-sync (the
/// bundle's temporary file is left half-written), then restarted on its store. Every cut loses
/// what the simulated disk had not synced (docs/simulation.md, "The simulated disk").
public struct CrashSettings: Hashable, Sendable, Codable {
    /// Expected crashes of each device per simulated hour.
    public var crashesPerDeviceHour = 0.3
    /// The longest a crashed device stays down.
    public var maxDowntimeSeconds = 600
    /// Probability that a power cut tears the last unsynced write (keeps a prefix of it, in
    /// whole sectors) instead of dropping it whole.
    public var tornWriteRate = 0.5
    /// Probability that a store's first open after a power cut meets a failed read.
    public var failedReadRate = 0.25

    /// The default scenario's values.
    public init() {}
}

/// Device clocks: skew, drift, and steps forward and backward.
public struct ClockSettings: Hashable, Sendable, Codable {
    /// Each device's skew is drawn from ±this.
    public var maxSkewSeconds = 300
    /// Each device's drift is drawn from ±this.
    public var maxDriftPartsPerMillion = 200
    /// Steps per device over the run.
    public var stepsPerDevice = 1
    /// The largest step, either way.
    public var maxStepSeconds = 600
    /// The share of steps that go backwards.
    public var backwardShare = 0.5
    /// Whether one phone's clock jumps a year ahead part way through the run and stays there
    /// (a dead RTC battery, a hand-set date): every other replica must hold its later ops
    /// aside, never apply them, and still converge on everything else.
    public var yearAheadClock = false
    /// Whether one device's clock runs one to six hours behind from the start until the heal
    /// (a time zone set by hand, then put right): it holds everyone's ops aside, as stamped
    /// hours ahead of it, until then, and writes ops stamped hours early.
    public var hoursBehindClock = false

    /// The default scenario's values.
    public init() {}
}

/// What the players do.
public struct WorkloadSettings: Hashable, Sendable, Codable {
    /// Probability that a device records a wrong stroke count.
    public var scoringErrorRate = 0.08
    /// Probability that the card's scorekeeper (its organizer's phone) also scores another player.
    public var scorekeeperRate = 0.5
    /// Probability that the watch scores its owner's hole.
    public var watchScoreRate = 0.6
    /// Probability that a device corrects its own wrong score.
    public var correctionRate = 0.6
    /// Races of course edits from several phones at once, per hour.
    public var courseEditsPerHour = 1.0
    /// Whether each card has a guest.
    public var guests = true
    /// Whether a device is taken offline over the moment its round is finished.
    public var finishWhileOffline = true
    /// Probability that two devices record the same hole at the very same millisecond.
    public var sameMillisecondRate = 0.05
    /// The organizer reviews discrepancies every this many holes.
    public var reviewEveryHoles = 3
    /// Whether two phones with accurate clocks edit one course at the same millisecond at the
    /// start, so that their ops carry equal clock readings (phones 0 and 1 then have no skew).
    public var exactTieCourseEdits = true

    /// The default scenario's values.
    public init() {}
}
