/// A knob of the world that `--set NAME=VALUE` pins, whatever the scenario or the swarm drew:
/// what the shrinker turns down, and what its reproduction line names.
public enum Knob: String, CaseIterable, Hashable, Sendable, Codable, CodingKeyRepresentable {
    /// Whether every phone also syncs through the folder (1) or one phone bridges it (0).
    case phonesUseFolder
    /// Symmetric partitions.
    case partitions
    /// One-way partitions.
    case oneWayPartitions
    /// Offline periods.
    case offlinePeriods
    /// Periods each watch spends out of its phone's range.
    case watchAway
    /// Wi-Fi outages.
    case outages
    /// The longest offline period, in minutes.
    case maxOfflineMinutes
    /// The longest partition, in minutes.
    case maxPartitionMinutes
    /// Packet loss on connections.
    case loss
    /// Stream stalls.
    case stalls
    /// Crashes per device hour.
    case crashes
    /// Whether power cuts tear the last write and opens after them meet failed reads (1) or
    /// neither (0): unsynced writes are lost either way.
    case diskFaults
    /// Clock steps per device.
    case clockSteps
    /// The largest clock skew, in seconds.
    case skew
    /// The largest clock drift, in parts per million.
    case drift
    /// Races of course edits per hour.
    case courseEdits
    /// Scoring mistakes.
    case mistakes
    /// Whether a device is offline over a round's finish (1) or not (0).
    case finishWhileOffline
    /// Whether cards have a guest (1) or not (0).
    case guests
    /// Whether the folder delivers files late, half-written, twice and as temporary files (1) or not (0).
    case folderFaults
    /// Whether one phone's clock jumps a year ahead (1) or not (0).
    case yearAhead
    /// Whether one device's clock runs hours behind (1) or not (0).
    case hoursBehind
    /// Whether one phone is a hostile member (1) or not (0).
    case hostileMember
    /// Whether the organizer removes one phone mid-round (1) or not (0).
    case removedMember
    /// Whether one phone is restored from an old backup mid-round (1) or not (0).
    case restoredBackup
    /// Whether one phone's store is copied to an extra device that writes with its key (1) or not (0).
    case copiedStore

    /// The knob's value in `configuration`.
    public func value(in configuration: SimulationConfiguration) -> Double {
        let network = configuration.network
        let folder = configuration.folder
        switch self {
        case .phonesUseFolder: return configuration.phonesUseFolder ? 1 : 0
        case .partitions: return Double(network.partitions)
        case .oneWayPartitions: return Double(network.oneWayPartitions)
        case .offlinePeriods: return Double(network.offlinePeriods)
        case .watchAway: return Double(network.watchOutOfRangePeriods)
        case .outages: return Double(network.outages)
        case .maxOfflineMinutes: return Double(network.maxOfflineMinutes)
        case .maxPartitionMinutes: return Double(network.maxPartitionMinutes)
        case .loss: return network.lossRate
        case .stalls: return network.stragglerRate
        case .crashes: return configuration.crashes.crashesPerDeviceHour
        case .diskFaults: return configuration.crashes.tornWriteRate + configuration.crashes.failedReadRate > 0 ? 1 : 0
        case .clockSteps: return Double(configuration.clocks.stepsPerDevice)
        case .skew: return Double(configuration.clocks.maxSkewSeconds)
        case .drift: return Double(configuration.clocks.maxDriftPartsPerMillion)
        case .courseEdits: return configuration.workload.courseEditsPerHour
        case .mistakes: return configuration.workload.scoringErrorRate
        case .finishWhileOffline: return configuration.workload.finishWhileOffline ? 1 : 0
        case .guests: return configuration.workload.guests ? 1 : 0
        case .folderFaults:
            return folder.lateRate + folder.partialRate + folder.duplicateRate + folder.temporaryFileRate > 0 ? 1 : 0
        case .yearAhead: return configuration.clocks.yearAheadClock ? 1 : 0
        case .hoursBehind: return configuration.clocks.hoursBehindClock ? 1 : 0
        case .hostileMember: return configuration.hostileMember ? 1 : 0
        case .removedMember: return configuration.removedMember ? 1 : 0
        case .restoredBackup: return configuration.restoredBackup ? 1 : 0
        case .copiedStore: return configuration.copiedStore ? 1 : 0
        }
    }

    /// Sets the knob in `configuration` (counts and minutes are rounded down; 0 switches the fault off).
    public func apply(_ value: Double, to configuration: inout SimulationConfiguration) {
        let count = Int(max(0, value))
        switch self {
        case .phonesUseFolder: configuration.phonesUseFolder = value > 0
        case .partitions: configuration.network.partitions = count
        case .oneWayPartitions: configuration.network.oneWayPartitions = count
        case .offlinePeriods: configuration.network.offlinePeriods = count
        case .watchAway: configuration.network.watchOutOfRangePeriods = count
        case .outages: configuration.network.outages = count
        case .maxOfflineMinutes: configuration.network.maxOfflineMinutes = max(1, min(240, count))
        case .maxPartitionMinutes: configuration.network.maxPartitionMinutes = max(1, count)
        case .loss: configuration.network.lossRate = min(1, max(0, value))
        case .stalls: configuration.network.stragglerRate = min(1, max(0, value))
        case .crashes: configuration.crashes.crashesPerDeviceHour = max(0, value)
        case .diskFaults:
            if value <= 0 {
                configuration.crashes.tornWriteRate = 0
                configuration.crashes.failedReadRate = 0
            }
        case .clockSteps: configuration.clocks.stepsPerDevice = count
        case .skew: configuration.clocks.maxSkewSeconds = count
        case .drift: configuration.clocks.maxDriftPartsPerMillion = count
        case .courseEdits: configuration.workload.courseEditsPerHour = max(0, value)
        case .mistakes: configuration.workload.scoringErrorRate = min(1, max(0, value))
        case .finishWhileOffline: configuration.workload.finishWhileOffline = value > 0
        case .guests: configuration.workload.guests = value > 0
        case .folderFaults:
            if value <= 0 {
                configuration.folder.lateRate = 0
                configuration.folder.partialRate = 0
                configuration.folder.duplicateRate = 0
                configuration.folder.temporaryFileRate = 0
            }
        case .yearAhead: configuration.clocks.yearAheadClock = value > 0
        case .hoursBehind: configuration.clocks.hoursBehindClock = value > 0
        case .hostileMember: configuration.hostileMember = value > 0
        case .removedMember: configuration.removedMember = value > 0
        case .restoredBackup: configuration.restoredBackup = value > 0
        case .copiedStore: configuration.copiedStore = value > 0
        }
    }

    /// Smaller values to try instead of `value`, the smallest first: off, then halves.
    func smaller(than value: Double) -> [Double] {
        guard value > 0 else { return [] }
        switch self {
        case .phonesUseFolder, .finishWhileOffline, .guests, .folderFaults, .diskFaults, .yearAhead, .hoursBehind, .hostileMember,
            .removedMember, .restoredBackup, .copiedStore:
            return [0]
        case .maxOfflineMinutes, .maxPartitionMinutes:
            return value > 1 ? [max(1, (value / 4).rounded(.down)), max(1, (value / 2).rounded(.down))].filter { $0 < value } : []
        case .partitions, .oneWayPartitions, .offlinePeriods, .watchAway, .outages, .clockSteps:
            return value > 1 ? [0, value - 1] : [0]
        case .loss, .stalls, .crashes, .courseEdits, .mistakes, .skew, .drift:
            return [0, value / 2]
        }
    }

    /// The knob and value of `NAME=VALUE`; nil for an unknown name or a value that is not a number.
    public static func parse(_ argument: String) -> (Knob, Double)? {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let knob = Knob(rawValue: parts[0]), let value = Double(parts[1]), value.isFinite, value >= 0 else {
            return nil
        }
        return (knob, value)
    }

    /// `NAME=VALUE`, as `--set` takes it.
    func argument(_ value: Double) -> String {
        let text = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        return "\(rawValue)=\(text)"
    }
}
