import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// A device's signed statement of how a finished round ended, as that device saw it.
public struct RoundReceipt: Hashable, Sendable {
    /// The device that signed the receipt.
    public let device: AuthorID
    /// The round signature (`RoundSignature`), 32 bytes.
    public let signature: [UInt8]
}

/// The round signature: a hash over the round's course, players and final totals in a fixed
/// canonical form (docs/formats.md, "Round signature"), so two devices that agree on the result
/// sign the same 32 bytes.
public enum RoundSignature {
    /// The 32-byte round signature of `evaluation`'s round as it stands.
    public static func of(_ evaluation: RoundEvaluation) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(raw: Array("hyzer-round/v1".utf8))
        writer.write(UInt8(0))
        writer.write(evaluation.round.id)
        writer.write(evaluation.round.courseName)
        writer.write(lengthPrefixed: evaluation.round.pars.map { UInt8(clamping: $0) })
        let totals = Dictionary(evaluation.standings.map { ($0.playerID, $0) }, uniquingKeysWith: { first, _ in first })
        writer.writeVarint(UInt64(evaluation.participants.count))
        for participant in evaluation.participants {
            writer.write(participant.id)
            writer.write(participant.name)
            writer.writeVarint(UInt64(totals[participant.id]?.totalStrokes ?? 0))
            writer.writeVarint(UInt64(totals[participant.id]?.holesPlayed ?? 0))
        }
        return Blake2b.hash256(writer.bytes)
    }
}

extension Replica {
    /// Signs a receipt for every finished round this device takes part in (it owns a participant
    /// or the organizer) and has not signed yet, with the round signature as this replica sees
    /// it now. Returns how many it signed. `round finish` calls it, and `afterIngest` when an
    /// ingest brought a finish.
    @discardableResult
    public func signReceipts() throws -> Int {
        try write { db in try signReceipts(ViewReader(db: db), db) }
    }

    /// What follows every ingest of other devices' ops, the one step every path that ingests
    /// takes after it (a connection's driver, a folder sync, a bundle import, and so the
    /// simulator's connections and folder): when the ingest applied a round's finish
    /// (`IngestReport.finishesApplied`, `finishesApplied` here), this device signs its receipts
    /// (`signReceipts()`: every finished round it takes part in and has not signed, so one that
    /// was missed before is signed now too; docs/domain.md, "Round receipts"). Returns how many
    /// it signed; the caller sends them as any change. A device that may not write (its key
    /// writes elsewhere, or the organizer removed it) signs none, and that is no failure of the
    /// sync that ingested. Throws when the store fails.
    @discardableResult
    public func afterIngest(finishesApplied: Int) throws -> Int {
        guard finishesApplied > 0 else { return 0 }
        do {
            return try signReceipts()
        } catch let error as ReplicaError {
            switch error {
            case .writtenElsewhere, .removedFromGroup: return 0
            default: throw error
            }
        }
    }

    /// The receipts of `round`, by signature then device.
    public func receipts(round: UUID) throws -> [RoundReceipt] {
        try read { db in
            (try ViewReader(db: db).receipts()[round] ?? []).sorted {
                $0.signature != $1.signature ? $0.signature.lexicographicallyPrecedes($1.signature) : $0.device < $1.device
            }
        }
    }

    func signReceipts(_ reader: ViewReader, _ db: Database) throws -> Int {
        let signed = try reader.receipts().compactMapValues { receipts in receipts.contains { $0.device == author } ? true : nil }
        let ownership = try reader.ownership()
        let finished = try Data.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT round FROM roundFinishes")).compactMap {
            UUID(bytes: Array($0))
        }
        var count = 0
        for id in finished.sorted(by: UUID.precedes) where signed[id] == nil {
            guard let round = try reader.round(id),
                round.participants.contains(where: { ownership.device(author, owns: $0.id) })
                    || ownership.device(author, owns: round.organizerID)
            else { continue }
            let evaluation = try reader.evaluation(round, ownership: ownership, merge: policies.merge)
            guard evaluation.finish != nil else { continue }
            try append(.roundReceipt(roundID: id, signature: RoundSignature.of(evaluation)), in: db)
            count += 1
        }
        return count
    }
}
