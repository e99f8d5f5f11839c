/// The documents the command line's `--json` and the web's `/api` print, built one way for both.
extension Replica {
    /// Every round, as `round list --json` prints it.
    public func roundDocuments() throws -> [RoundDocument] {
        try rounds().map { try roundDocument($0) }
    }

    /// One round with the receipts this replica holds for it.
    public func roundDocument(_ view: RoundView) throws -> RoundDocument {
        RoundDocument(view, receipts: try receipts(round: view.round.id))
    }

    /// Every registered player with its aliases, as `player list --json` prints it.
    public func playerDocuments() throws -> [PlayerDocument] {
        let aliases = try aliases()
        return try players().map { PlayerDocument($0, aliases: aliases[$0.id] ?? []) }
    }
}
