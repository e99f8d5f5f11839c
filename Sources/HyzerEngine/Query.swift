import Foundation
import HyzerDomain
import HyzerKit

/// Something to read from the store, once (`HyzerEngine.read(_:)`) or live
/// (`HyzerEngine.observe(_:)`): standings, a card, a player's history, the replica's status, the
/// group's members, and the lists a scoring app's screens show (rounds, one round, players,
/// devices). Each is a pure function of the store's contents, so equal stores give equal
/// values.
public struct Query<Value: Equatable & Sendable>: Sendable {
    /// Reads the value on the engine's store queue.
    let read: @Sendable (Replica) throws -> Value
}

extension Query where Value == StandingsDocument {
    /// The leaderboard of `round`, as `hyzer-peer standings --json` prints it.
    public static func standings(of round: RoundID) -> Query {
        Query { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return StandingsDocument(view)
        }
    }
}

extension Query where Value == Scorecard {
    /// The card of `round`: every participant's current score on every hole.
    public static func card(of round: RoundID) -> Query {
        Query { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return Scorecard(view)
        }
    }
}

extension Query where Value == PlayerHistoryDocument {
    /// `player`'s completed rounds, newest first, as the web's `/api/players/P` prints them.
    public static func history(of player: PlayerID) -> Query {
        Query { replica in
            guard let found = try replica.players().first(where: { $0.id == player.uuid }) else {
                throw ReplicaError.unknown(kind: "player", text: player.description)
            }
            return PlayerHistoryDocument(found, history: try replica.history(includingStandings: true))
        }
    }
}

extension Query where Value == ReplicaStatus {
    /// What the replica holds: its version vector and digest, op counts, ops waiting, forks.
    public static var status: Query { Query { try $0.status() } }
}

extension Query where Value == [GroupMember] {
    /// The group's devices, as `HyzerEngine.members()` returns them.
    public static var members: Query { Query { try $0.groupMembers() } }
}
