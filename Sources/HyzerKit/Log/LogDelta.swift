import HyzerDomain

/// What a peer lacks, read from one snapshot with what a connection checks beside it
/// (`Replica.deltaRead(above:segmentBytesMax:)`).
public struct LogDelta: Sendable {
    /// The segments the peer lacks, in author order.
    public let segments: [AuthorSegment]
    /// This replica's vector in the same snapshot: what the segments bring the peer up to.
    public let vector: VersionVector
    /// The devices removed from the group (a connection sends a removed peer nothing).
    public let removed: Set<AuthorID>
    /// Whether a held segment's time had come: `Replica.versionVector()` applies it.
    public let releaseDue: Bool
}
