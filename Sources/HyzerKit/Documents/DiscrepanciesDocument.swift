import HyzerDomain

/// Holes scored differently by different devices, as `discrepancies --json` and the web's
/// `/api/rounds/R/discrepancies` print them.
public struct DiscrepanciesDocument: Encodable, Sendable {
    public let round: String
    public let discrepancies: [Discrepancy]

    public init(_ view: RoundView) {
        round = view.round.id.lowercased
        discrepancies = view.evaluation.discrepancies
    }
}
