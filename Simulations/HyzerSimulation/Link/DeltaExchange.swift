import HyzerKit

/// The state machine of one side of a direct link: what the peer is known to hold, what was
/// sent to it since, and so what to send next. Pure: no replica, no I/O, no clock.
///
/// Like a live TCP session it is optimistic — once a delta is sent, the next one starts above
/// it without waiting for an acknowledgement — so a lost or overtaken message leaves the peer a
/// gap, which its ingest must keep pending. Every `resyncEvery` ticks it falls back to what the
/// peer last reported holding, which retransmits whatever was lost.
public struct DeltaExchange: Hashable, Sendable {
    /// What to do on the link now.
    public enum Plan: Hashable, Sendable {
        /// Nothing new to say.
        case idle
        /// Send the local vector and every op above `base`.
        case send(above: VersionVector)
    }

    /// The highest vector the peer has reported; a lower bound of what it holds.
    public private(set) var peerHolds = VersionVector()
    /// What this side sent since the last resync, assumed received.
    public private(set) var assumedSent = VersionVector()
    /// The local vector last told to the peer.
    public private(set) var advertised: VersionVector?
    private var ticks = 0
    /// Ticks between two fallbacks to the peer's reported vector.
    public let resyncEvery: Int
    /// Ticks between two vector announcements when nothing changed.
    public let heartbeatEvery: Int

    /// A side that knows nothing of its peer yet.
    public init(resyncEvery: Int = 3, heartbeatEvery: Int = 4) {
        self.resyncEvery = max(1, resyncEvery)
        self.heartbeatEvery = max(1, heartbeatEvery)
    }

    /// A periodic sync with the peer, holding `local`: ops the peer may lack, or every
    /// `heartbeatEvery` ticks the local vector alone, so that the peer learns what to send.
    public mutating func tick(local: VersionVector) -> Plan {
        ticks += 1
        if ticks % resyncEvery == 0 { assumedSent = peerHolds }
        let base = Self.maximum(peerHolds, assumedSent)
        if Self.hasOps(local, above: base) || advertised == nil || ticks % heartbeatEvery == 0 {
            return .send(above: base)
        }
        return .idle
    }

    /// The peer reported holding `peerVector`; returns what to answer, holding `local`: the ops
    /// it lacks, if any.
    public mutating func received(peerVector: VersionVector, local: VersionVector) -> Plan {
        peerHolds = Self.maximum(peerHolds, peerVector)
        let base = Self.maximum(peerHolds, assumedSent)
        return Self.hasOps(local, above: base) ? .send(above: base) : .idle
    }

    /// A message holding `local` and every op above the plan's base left.
    public mutating func sent(local: VersionVector) {
        assumedSent = Self.maximum(assumedSent, local)
        advertised = local
    }

    /// The larger sequence number of each author.
    static func maximum(_ lhs: VersionVector, _ rhs: VersionVector) -> VersionVector {
        var result = lhs
        for (author, sequence) in rhs.sortedEntries where sequence > result[author] { result[author] = sequence }
        return result
    }

    /// Whether `local` holds an op above `base`.
    static func hasOps(_ local: VersionVector, above base: VersionVector) -> Bool {
        local.sortedEntries.contains { $0.sequence > base[$0.author] }
    }
}
