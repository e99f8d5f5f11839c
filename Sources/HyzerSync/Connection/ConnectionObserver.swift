import HyzerKit

/// Hooks around a `ConnectionDriver`'s store work, for a caller that keeps its own books (the
/// simulator's coverage counters, trace lines and safety checks). Every hook has a default that
/// does nothing, and none of them performs protocol: that is the driver's. A hook that throws
/// ends the driver's call with that error (the simulator's failed check); the connection is
/// then the caller's to tear down.
public protocol ConnectionObserver: AnyObject {
    /// The driver read the store's version vector (which applies held ops whose time has come).
    func vectorRead(_ vector: VersionVector) throws
    /// The driver read the delta above `above` for the peer; returns bundles to send after it
    /// (the simulator's hostile member adds its crafted one).
    func deltaRead(_ delta: Delta, above: VersionVector) throws -> [[UInt8]]
    /// The segments of a checked bundle to ingest (the simulator cuts them short before a crash).
    func segmentsToIngest(_ bundle: Bundle) -> [AuthorSegment]
    /// The driver ingested `segments`; the store now holds `vector`. Returns false when the
    /// device is gone (the simulator's crash mid-ingest): the driver stops there.
    func ingested(_ segments: [AuthorSegment], of bundle: Bundle, report: IngestReport, vector: VersionVector) throws -> Bool
    /// The store decided a joiner's request.
    func admitted(_ request: JoinRequest, _ admission: Admission)
    /// The peer's belief of what this side holds was wrong: the driver told it `holdings`.
    func holdingsSent(_ holdings: Holdings)
}

extension ConnectionObserver {
    /// Does nothing.
    public func vectorRead(_ vector: VersionVector) throws {}
    /// Adds no bundle.
    public func deltaRead(_ delta: Delta, above: VersionVector) throws -> [[UInt8]] { [] }
    /// Every segment of the bundle.
    public func segmentsToIngest(_ bundle: Bundle) -> [AuthorSegment] { bundle.segments }
    /// Lets the driver go on.
    public func ingested(_ segments: [AuthorSegment], of bundle: Bundle, report: IngestReport, vector: VersionVector) throws -> Bool {
        true
    }
    /// Does nothing.
    public func admitted(_ request: JoinRequest, _ admission: Admission) {}
    /// Does nothing.
    public func holdingsSent(_ holdings: Holdings) {}
}
