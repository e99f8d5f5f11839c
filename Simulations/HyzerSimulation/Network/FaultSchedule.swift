/// A span of true time, `start` included, `end` excluded.
public struct TimeWindow: Hashable, Sendable, Codable {
    /// The first instant inside, in true milliseconds.
    public let start: UInt64
    /// The first instant after.
    public let end: UInt64

    /// The window from `start` to `end` (empty when `end` comes first).
    public init(start: UInt64, end: UInt64) {
        self.start = start
        self.end = max(start, end)
    }

    /// Whether `instant` falls inside.
    public func contains(_ instant: UInt64) -> Bool { start <= instant && instant < end }
}

/// When which device is unreachable: offline periods, partitions (symmetric and one-way), Wi-Fi
/// outages and the watches' trips out of their phones' range. Drawn once at setup; `heal()` ends
/// them all.
struct FaultSchedule {
    /// A network partition.
    enum Partition: Hashable {
        /// Devices in `side` cannot talk with devices outside it.
        case symmetric(side: Set<Int>, window: TimeWindow)
        /// Messages from `from` to `to` vanish; the other direction works.
        case oneWay(from: Int, to: Int, window: TimeWindow)
    }

    private(set) var offline: [(device: Int, window: TimeWindow)] = []
    private(set) var partitions: [Partition] = []
    private(set) var outages: [TimeWindow] = []
    private(set) var watchAway: [(watch: Int, window: TimeWindow)] = []
    private(set) var healed = false

    mutating func addOffline(device: Int, window: TimeWindow) { offline.append((device, window)) }
    mutating func addPartition(_ partition: Partition) { partitions.append(partition) }
    mutating func addOutage(_ window: TimeWindow) { outages.append(window) }
    mutating func addWatchAway(watch: Int, window: TimeWindow) { watchAway.append((watch, window)) }

    /// Ends every fault: from now on every device is online and every link works.
    mutating func heal() { healed = true }

    /// Whether `device` has neither network nor folder at `instant`.
    func isOffline(_ device: Int, at instant: UInt64) -> Bool {
        guard !healed else { return false }
        return offline.contains { $0.device == device && $0.window.contains(instant) }
    }

    /// Whether a partition stops messages from `from` to `to` at `instant`.
    func blocks(from: Int, to: Int, at instant: UInt64) -> Bool {
        guard !healed else { return false }
        return partitions.contains { partition in
            switch partition {
            case .symmetric(let side, let window):
                window.contains(instant) && side.contains(from) != side.contains(to)
            case .oneWay(let blockedFrom, let blockedTo, let window):
                window.contains(instant) && blockedFrom == from && blockedTo == to
            }
        }
    }

    /// Whether the Wi-Fi is down at `instant`.
    func wifiDown(at instant: UInt64) -> Bool {
        guard !healed else { return false }
        return outages.contains { $0.contains(instant) }
    }

    /// Whether `watch` is within reach of its phone at `instant`.
    func watchInRange(_ watch: Int, at instant: UInt64) -> Bool {
        guard !healed else { return true }
        return !watchAway.contains { $0.watch == watch && $0.window.contains(instant) }
    }
}
