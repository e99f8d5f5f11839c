/// A hybrid logical clock reading: wall-clock milliseconds since the Unix epoch, and a
/// counter that orders events within one millisecond (or while the wall clock stands still
/// or goes backwards). Readings compare by milliseconds, then counter.
public struct HLCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, as the authoring replica's clock saw them.
    public var physicalMilliseconds: UInt64
    /// Orders readings that share `physicalMilliseconds`.
    public var counter: UInt32

    /// A reading of `physicalMilliseconds` since the Unix epoch and a `counter` within that millisecond.
    public init(physicalMilliseconds: UInt64, counter: UInt32 = 0) {
        self.physicalMilliseconds = physicalMilliseconds
        self.counter = counter
    }

    /// The smallest reading: older than every op.
    public static let zero = HLCTimestamp(physicalMilliseconds: 0, counter: 0)

    /// Whether `lhs` is older: by milliseconds first, then by counter.
    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool {
        (lhs.physicalMilliseconds, lhs.counter) < (rhs.physicalMilliseconds, rhs.counter)
    }

    /// `MILLISECONDS.COUNTER`, as logs and `--json` documents print a reading.
    public var description: String { "\(physicalMilliseconds).\(counter)" }
}
