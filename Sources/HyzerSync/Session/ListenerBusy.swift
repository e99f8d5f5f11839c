/// Why a listener closed a connection for a reason of its own, told to the dialer in one short
/// unauthenticated frame before the close (docs/sync-protocol.md, "Bounds and failure").
///
/// Anyone between the two devices could forge it, so a dialer believes it no further than its
/// wording and a retry: it is refused before the listener's hello, exactly as a close would be,
/// and changes nothing else (no older epoch is tried, nothing is kept).
public enum ListenerBusy: UInt8, Sendable, Equatable, CustomStringConvertible {
    /// The listener holds as many connections as it takes in all.
    case full = 1
    /// The listener holds as many connections not yet through the handshake from the dialer's
    /// address as it takes (a shared network or NAT, or someone flooding it), and this one was
    /// the oldest of them or the newest.
    case addressCrowded = 2

    /// The frame's bytes: `hyzer-busy/v1`, then the reason.
    public var frame: [UInt8] { Self.prefix + [rawValue] }

    /// The notice in `frame`; `nil` for any other bytes.
    public init?(frame: [UInt8]) {
        guard frame.count == Self.prefix.count + 1, frame.starts(with: Self.prefix), let reason = Self(rawValue: frame[frame.count - 1])
        else { return nil }
        self = reason
    }

    private static let prefix = Array("hyzer-busy/v1".utf8)

    /// Why, in words that follow "the peer is busy: " (`it` is the listener).
    public var description: String {
        switch self {
        case .full: "it has as many connections as it takes"
        case .addressCrowded:
            "too many connections from this address have not completed their handshake (a shared network, or someone flooding the peer)"
        }
    }
}
