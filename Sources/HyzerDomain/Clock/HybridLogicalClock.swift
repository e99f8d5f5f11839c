/// A hybrid logical clock (Kulkarni et al.): readings never go backwards on one replica and
/// always exceed every reading the replica has observed, while staying close to wall time.
///
/// A received reading far in the future does not drag the local clock past
/// `now + maximumDriftMilliseconds`: the op keeps its reading, the local clock does not adopt it.
public struct HybridLogicalClock: Sendable, Equatable {
    /// How far ahead of local wall time a received reading may pull the clock: ten minutes.
    public static let maximumDriftMilliseconds: UInt64 = 10 * 60 * 1000

    /// The latest reading issued or observed.
    public private(set) var latest: HLCTimestamp

    /// A clock whose readings will all exceed `latest` (a new replica's clock starts at `.zero`).
    public init(latest: HLCTimestamp = .zero) {
        self.latest = latest
    }

    /// The reading for a new local op, given the wall clock's `now`.
    public mutating func tick(nowMilliseconds now: UInt64) -> HLCTimestamp {
        if now > latest.physicalMilliseconds {
            latest = HLCTimestamp(physicalMilliseconds: now, counter: 0)
        } else if latest.counter == UInt32.max {
            latest = HLCTimestamp(physicalMilliseconds: latest.physicalMilliseconds + 1, counter: 0)
        } else {
            latest.counter += 1
        }
        return latest
    }

    /// Advances the clock past a reading received from another replica, unless that reading
    /// is more than `maximumDriftMilliseconds` ahead of `now`.
    public mutating func observe(_ remote: HLCTimestamp, nowMilliseconds now: UInt64) {
        let ceiling = now &+ Self.maximumDriftMilliseconds
        guard remote > latest, remote.physicalMilliseconds <= ceiling else { return }
        latest = remote
    }
}
