import Foundation
import GRDB
import HyzerDomain

/// Who this replica is.
public struct ReplicaIdentity: Hashable, Sendable {
    /// This device's key.
    public let author: AuthorID
    /// This device's name.
    public let name: String
    /// This device's kind.
    public let kind: DeviceKind
    /// The player this device owns from `init --owner`, if any.
    public let owner: Player?
}

/// A round with every view derived from it.
public struct RoundView: Sendable {
    /// The round as its start op fixed it.
    public let round: Round
    /// The round evaluated over every op this replica counts.
    public let evaluation: RoundEvaluation
}

extension Replica {
    /// This device's key, name, kind and owner; throws `ReplicaError` when the store cannot be read.
    public func identity() throws -> ReplicaIdentity {
        try read { db in
            let reader = ViewReader(db: db)
            let ownerID = try Meta.text(.owner, in: db).flatMap(UUID.init(uuidString:))
            return ReplicaIdentity(
                author: author, name: try Meta.text(.name, in: db) ?? "",
                kind: try Meta.text(.kind, in: db).flatMap(DeviceKind.init(rawValue:)) ?? .laptop,
                owner: try ownerID.flatMap { id in try reader.players().first { $0.id == id } })
        }
    }

    /// Registered players, by name.
    public func players() throws -> [Player] {
        try read { try ViewReader(db: $0).players() }
    }

    /// Every player's aliases (`player alias`), sorted by their bytes.
    public func aliases() throws -> [UUID: [String]] {
        try read { try ViewReader(db: $0).aliases() }
    }

    /// Courses by name; deleted ones only when asked for.
    public func courses(includingDeleted: Bool = false) throws -> [Course] {
        try read { try ViewReader(db: $0).courses().filter { includingDeleted || !$0.deleted } }
    }

    /// The course with id `id`, deleted or not; `nil` when the replica holds none.
    public func course(_ id: UUID) throws -> Course? {
        try read { try ViewReader(db: $0).course(id) }
    }

    /// Every round, most recently started first.
    public func rounds() throws -> [RoundView] {
        try read { db in
            let reader = ViewReader(db: db)
            let ownership = try reader.ownership()
            return try reader.roundIDs().compactMap { id in
                try reader.round(id).map {
                    RoundView(round: $0, evaluation: try reader.evaluation($0, ownership: ownership, merge: policies.merge))
                }
            }
        }
    }

    /// The round with id `id` and its views; `nil` when the replica holds none.
    public func roundView(_ id: UUID) throws -> RoundView? {
        try read { db in
            let reader = ViewReader(db: db)
            return try reader.round(id).map { RoundView(round: $0, evaluation: try reader.evaluation($0, merge: policies.merge)) }
        }
    }

    /// Completed rounds, newest first. Unchanged rounds come from the history cache; rounds
    /// evaluated afresh are stored back into it when the store can be written at once (a cache
    /// that cannot be written is only slower: the next call evaluates them again).
    public func history(includingStandings: Bool = false) throws -> [HistoryEntry] {
        let lookup = try read { db in try HistoryCache.lookup(db, standings: includingStandings, merge: policies.merge) }
        if let update = lookup.update { try? write { db in try update.store(db) } }
        return History.newestFirst(lookup.values, includeStandings: includingStandings)
    }

    /// Every completed round's full cards, in no particular order: what the stats read. From the
    /// history cache like `history`, and stored back into it the same way.
    public func playedRounds() throws -> [PlayedRound] {
        let lookup = try read { db in try HistoryCache.played(db, merge: policies.merge) }
        if let update = lookup.update { try? write { db in try update.store(db) } }
        return lookup.values
    }

    /// The evaluations of every completed round, in no particular order (what export writes).
    public func completedRounds() throws -> [RoundEvaluation] {
        try read { db in
            let reader = ViewReader(db: db)
            let ownership = try reader.ownership()
            let ids = try Data.fetchAll(db.cachedStatement(sql: "SELECT DISTINCT round FROM roundFinishes")).compactMap {
                UUID(bytes: Array($0))
            }
            return try ids.compactMap { id in
                guard let round = try reader.round(id) else { return nil }
                let evaluation = try reader.evaluation(round, ownership: ownership, merge: policies.merge)
                return evaluation.finish == nil ? nil : evaluation
            }
        }
    }

    /// Devices that have published their signed device record.
    public func devices() throws -> [Device] {
        try read { try ViewReader(db: $0).devices() }
    }

    /// Which devices own which players, from the creations, links and successions this replica counts.
    public func ownership() throws -> Ownership {
        try read { try ViewReader(db: $0).ownership() }
    }
}
