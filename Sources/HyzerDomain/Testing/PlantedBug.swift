/// Known bugs the simulator's own tests plant to prove that the harness catches them
/// (docs/simulation.md). Off everywhere unless a test turns one on for a scope with
/// `PlantedBug.$active.withValue([...]) { … }`; production code never sets it.
public struct PlantedBug: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The current score is the newest event by timestamp, not the supersession graph's leaf.
    public static let newestTimestampWins = PlantedBug(rawValue: 1 << 0)
    /// Last-writer-wins compares clocks only, so equal clocks fall to arrival order.
    public static let lastWriterWinsByClockOnly = PlantedBug(rawValue: 1 << 1)
    /// Ingest drops ops that arrive above a gap (or stamped too far ahead) instead of keeping
    /// them pending (or held).
    public static let ingestDropsGaps = PlantedBug(rawValue: 1 << 2)
    /// Deltas leave out the ops of watches other than the recipient: relays forget the watch.
    public static let relayForgetsWatch = PlantedBug(rawValue: 1 << 3)

    /// The bugs planted in the current task's scope.
    @TaskLocal public static var active: PlantedBug = []
}
