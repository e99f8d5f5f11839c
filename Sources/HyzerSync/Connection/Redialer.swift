import HyzerKit

/// When and how a device that keeps a live connection to a peer dials it again
/// (docs/sync-protocol.md, "Heartbeats and dead peers"): the one policy of `serve --peer` and of
/// the simulator. Pure: the caller draws the jitter (the system's randomness, or the
/// simulator's seeded stream) and sleeps.
///
/// - After a failed dial or a closed connection it waits 100 ms, doubling up to
///   `backoffMaxMilliseconds`, plus up to a fifth of it as jitter.
/// - A connection on which the peer proved itself starts the backoff over.
/// - A peer that closes during the handshake, or answers that this device is not a member,
///   may not have received the newest rekey: the next dial uses the epoch before the one just
///   tried, in turn down to the oldest this device holds; any other outcome goes back to the newest.
public struct Redialer: Sendable {
    /// The first pause after a failure: 100 ms.
    public static let firstDelayMilliseconds: UInt64 = 100
    /// The longest pause, before jitter.
    public let backoffMaxMilliseconds: UInt64
    /// The pause before the next dial, before jitter.
    public private(set) var delayMilliseconds = Self.firstDelayMilliseconds
    /// The older epoch to dial with next; nil dials with the newest.
    public private(set) var dialEpoch: UInt32?

    /// A redialer whose pauses double up to `backoffMaxMilliseconds` (at least 100 ms).
    public init(backoffMaxMilliseconds: UInt64 = 2_000) {
        self.backoffMaxMilliseconds = max(Self.firstDelayMilliseconds, backoffMaxMilliseconds)
    }

    /// A connection ended. `authenticated`: the peer proved itself on it; `group`: what the
    /// device held when it dialed.
    public mutating func connectionEnded(authenticated: Bool, failure: SyncFailure?, group: GroupMembership) {
        if authenticated { delayMilliseconds = Self.firstDelayMilliseconds }
        assert(delayMilliseconds <= backoffMaxMilliseconds, "the pause stays within its bound")
        dialEpoch = Self.epochToDial(after: failure, dialed: dialEpoch, group: group)
    }

    /// The one rule of falling back to an older group key, for `serve --peer` and `sync --peer`
    /// alike: after a dial under `dialed` (`nil`: the newest epoch) that ended with `failure`,
    /// the older epoch to dial with next, or `nil` for the newest. A peer that closes during the
    /// handshake, or whose hello does not prove the key dialed with (`notAGroupMember`), may not
    /// have received the newest rekey: the epoch before the one just tried, in turn down to the
    /// oldest `group` holds; any other outcome, or the oldest tried, goes back to the newest.
    public static func epochToDial(after failure: SyncFailure?, dialed: UInt32?, group: GroupMembership) -> UInt32? {
        let next: UInt32? =
            switch failure {
            case .closedDuringHandshake?, .notAGroupMember?: group.epochBefore(dialed ?? group.epoch)
            default: nil
            }
        assert(next.map { $0 < (dialed ?? group.epoch) } ?? true, "each fallback dials an older epoch, so the turn ends")
        return next
    }

    /// The pause before the next dial, in milliseconds; `jitter` draws a number in the range it
    /// is given. Each call doubles the next pause, up to the cap.
    public mutating func nextDelay(jitter: (ClosedRange<UInt64>) -> UInt64) -> UInt64 {
        let delay = delayMilliseconds
        assert(delay >= Self.firstDelayMilliseconds && delay <= backoffMaxMilliseconds, "the pause stays within its bounds")
        delayMilliseconds = min(delayMilliseconds * 2, backoffMaxMilliseconds)
        return delay + min(delay / 5, jitter(0...(delay / 5)))
    }
}
