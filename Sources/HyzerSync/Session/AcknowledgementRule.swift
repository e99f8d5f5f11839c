import HyzerKit

/// What a live `have` tells the peer once its bundle is ingested: given the vector of the
/// store after the ingest and the vector the bundle's sender held, the vector to report. A
/// value the engine takes, so that the simulator's own tests can hand it a wrong rule and see
/// the harness catch it (docs/simulation.md); everything that ships reports `.whatTheStoreHolds`.
public struct AcknowledgementRule: Sendable {
    /// The vector to report, given the store's vector after the ingest and the sender's.
    public let reports: @Sendable (_ stored: VersionVector, _ received: VersionVector) -> VersionVector

    /// A rule from its function.
    public init(reports: @escaping @Sendable (_ stored: VersionVector, _ received: VersionVector) -> VersionVector) {
        self.reports = reports
    }

    /// The store's vector after the ingest: ops kept aside (pending above a gap, held until
    /// the clock gets there) or refused are not held, and the peer must not believe they are.
    public static let whatTheStoreHolds = AcknowledgementRule { stored, _ in stored }
}
