import HyzerDomain
import HyzerKit

/// What a connection reports while it runs (`ConnectionSignals.progress`).
public enum ConnectionProgress: Sendable, Equatable {
    /// The peer completed the handshake.
    case opened(peer: AuthorID)
    /// What the peer is known to hold now (its hello, its `have`s, what was sent to it).
    case peerHolds(peer: AuthorID, VersionVector)
    /// The connection to the peer ended.
    case closed(peer: AuthorID)
}
