import Foundation

/// Where a replica reads wall time. The command line uses the system clock; the simulator
/// gives every device a virtual clock of its own.
public protocol WallClock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    func nowMilliseconds() -> UInt64
}

/// The operating system's clock.
public struct SystemClock: WallClock {
    /// The system clock.
    public init() {}

    /// Milliseconds since the Unix epoch by the system's clock (0 before 1970).
    public func nowMilliseconds() -> UInt64 {
        UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    }
}
