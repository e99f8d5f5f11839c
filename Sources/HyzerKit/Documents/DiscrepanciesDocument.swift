import HyzerDomain

/// Holes scored differently by different devices, and late scores (written before the
/// finish, received by the finisher after it: not counted), as `discrepancies --json` and the
/// web's `/api/rounds/R/discrepancies` print them.
public struct DiscrepanciesDocument: Codable, Hashable, Sendable {
    /// The round's id (its JSON: the lowercase UUID).
    public let round: RoundID
    /// Every disputed (player, hole) of the round: its leaves disagree.
    public let discrepancies: [Discrepancy]
    /// The round's late scores.
    public let late: [LateScoreDocument]

    /// The discrepancies and late scores of `view`'s round.
    public init(_ view: RoundView) {
        round = RoundID(view.round.id)
        discrepancies = view.evaluation.discrepancies
        late = LateScoreDocument.all(view)
    }
}
