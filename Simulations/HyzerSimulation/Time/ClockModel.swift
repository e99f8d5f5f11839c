/// How one device's wall clock departs from true time: a fixed skew, a drift, and steps (an
/// NTP correction, a user changing the time zone by hand, a dead RTC battery) that jump the
/// clock forward or backward at given true instants.
///
/// All integer arithmetic, so a reading is the same on every machine.
public struct ClockModel: Hashable, Sendable, Codable {
    /// One jump of the clock at true time `at`, by `deltaMilliseconds` (negative: backwards).
    public struct Step: Hashable, Sendable, Codable {
        /// The true instant of the step.
        public let at: UInt64
        /// How far the clock jumps.
        public let deltaMilliseconds: Int64

        /// A step at `at` by `deltaMilliseconds`.
        public init(at: UInt64, deltaMilliseconds: Int64) {
            self.at = at
            self.deltaMilliseconds = deltaMilliseconds
        }
    }

    /// Where drift is measured from: the run's start.
    public let origin: UInt64
    /// Constant offset from true time; minutes of skew either way.
    public let skewMilliseconds: Int64
    /// Parts per million the clock gains (positive) or loses (negative).
    public let driftPartsPerMillion: Int64
    /// Steps in true-time order.
    public let steps: [Step]

    /// A clock with the given departures from true time; steps are sorted.
    public init(origin: UInt64, skewMilliseconds: Int64 = 0, driftPartsPerMillion: Int64 = 0, steps: [Step] = []) {
        self.origin = origin
        self.skewMilliseconds = skewMilliseconds
        self.driftPartsPerMillion = driftPartsPerMillion
        self.steps = steps.sorted { ($0.at, $0.deltaMilliseconds) < ($1.at, $1.deltaMilliseconds) }
    }

    /// A clock that always reads true time.
    public static func accurate(origin: UInt64) -> ClockModel { ClockModel(origin: origin) }

    /// Whether this clock ever departs from true time.
    public var isAccurate: Bool { skewMilliseconds == 0 && driftPartsPerMillion == 0 && steps.isEmpty }

    /// What the device's clock shows at true time `trueTime`.
    public func reading(at trueTime: UInt64) -> UInt64 {
        let elapsed = Int64(trueTime) - Int64(origin)
        var value = Int64(trueTime) + skewMilliseconds + elapsed * driftPartsPerMillion / 1_000_000
        for step in steps where step.at <= trueTime { value += step.deltaMilliseconds }
        return UInt64(max(0, value))
    }
}
