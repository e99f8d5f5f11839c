import Foundation
import HyzerDomain
import HyzerKit

/// The read-only views the command line prints and the web serves: rounds, courses, players,
/// completed rounds and the statistics drawn from them. Each is read once, on the engine's
/// store queue, and is a pure function of the store's contents (docs/embedding.md, "What it
/// offers"); `Query` holds the ones worth observing live.
extension HyzerEngine {
    /// `round` with every view derived from it (its evaluation: standings, breakdowns,
    /// discrepancies, late scores); `nil` when the store holds no such round.
    public func roundView(_ round: RoundID) async throws -> RoundView? {
        try await perform(.read) { try $0.roundView(round.uuid) }
    }

    /// Every round, most recently started first, as `hyzer-peer round list --json` prints it.
    public func roundDocuments() async throws -> [RoundDocument] {
        try await perform(.read) { try $0.roundDocuments() }
    }

    /// `round` as `hyzer-peer round show --json` prints it, with the receipts the store holds
    /// for it; `nil` when the store holds no such round.
    public func roundDocument(_ round: RoundID) async throws -> RoundDocument? {
        try await perform(.read) { replica in try replica.roundView(round.uuid).map { try replica.roundDocument($0) } }
    }

    /// The receipts the store holds for `round`: which device signed which round signature.
    public func receipts(of round: RoundID) async throws -> [RoundReceipt] {
        try await perform(.read) { try $0.receipts(round: round.uuid) }
    }

    /// Every registered player with its aliases, by name, as `hyzer-peer player list --json`
    /// prints them.
    public func playerDocuments() async throws -> [PlayerDocument] {
        try await perform(.read) { try $0.playerDocuments() }
    }

    /// The courses by name; deleted ones only with `includingDeleted`.
    public func courses(includingDeleted: Bool = false) async throws -> [Course] {
        try await perform(.read) { try $0.courses(includingDeleted: includingDeleted) }
    }

    /// The course with `id`, deleted or not; `nil` when the store holds none.
    public func course(_ id: CourseID) async throws -> Course? {
        try await perform(.read) { try $0.course(id.uuid) }
    }

    /// The completed rounds, newest first; with `includingStandings`, each with its final
    /// standings.
    public func history(includingStandings: Bool = false) async throws -> [HistoryEntry] {
        try await perform(.read) { try $0.history(includingStandings: includingStandings) }
    }

    /// `player`'s record over the completed rounds: rounds played, average, bests per course
    /// and trend. Throws `ReplicaError.unknown` for a player the store does not hold.
    public func playerStats(of player: PlayerID) async throws -> PlayerStats {
        try await perform(.read) { replica in
            PlayerStats(player: try Self.registered(player, replica), played: try replica.playedRounds())
        }
    }

    /// `player` against `opponent` over the completed rounds both played. Throws
    /// `ReplicaError.unknown` for a player the store does not hold.
    public func headToHead(_ player: PlayerID, against opponent: PlayerID) async throws -> HeadToHead {
        try await perform(.read) { replica in
            HeadToHead(
                player: try Self.registered(player, replica), opponent: try Self.registered(opponent, replica),
                played: try replica.playedRounds())
        }
    }

    /// How `course` plays over its completed rounds: each hole's average, the hardest and
    /// easiest holes. Throws `ReplicaError.unknown` for a course the store does not hold.
    public func courseStats(of course: CourseID) async throws -> CourseStats {
        try await perform(.read) { replica in
            guard let found = try replica.course(course.uuid) else { throw ReplicaError.unknown(kind: "course", text: course.description) }
            return CourseStats(course: found, played: try replica.playedRounds())
        }
    }

    /// A signal after each commit to the store, from this engine, another process or a sync,
    /// until the task iterating it is cancelled or the engine closes. Signals that arrive while
    /// the last one waits are merged into it: read the views again after each.
    public func changes() async throws -> AsyncStream<Void> {
        try await subscribe()
    }

    /// The registered player with `id`.
    static func registered(_ id: PlayerID, _ replica: Replica) throws -> Player {
        guard let player = try replica.players().first(where: { $0.id == id.uuid }) else {
            throw ReplicaError.unknown(kind: "player", text: id.description)
        }
        return player
    }
}
