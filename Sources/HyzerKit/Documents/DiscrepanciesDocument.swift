import HyzerDomain

/// Holes scored differently by different devices, and late scores (written before the
/// finish, received by the finisher after it: not counted), as `discrepancies --json` and the
/// web's `/api/rounds/R/discrepancies` print them.
public struct DiscrepanciesDocument: Encodable, Sendable {
    public let round: String
    public let discrepancies: [Discrepancy]
    public let late: [LateScoreDocument]

    public init(_ view: RoundView) {
        round = view.round.id.lowercased
        discrepancies = view.evaluation.discrepancies
        late = LateScoreDocument.all(view)
    }
}
