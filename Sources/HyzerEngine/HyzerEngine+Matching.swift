import Foundation
import HyzerDomain
import HyzerKit

/// Finding one id from what a person typed, as the command line takes it (docs/cli.md): an
/// exact id, an exact name, or an unambiguous id prefix, in that order. Unlike the lookups by
/// name, which return every match, these refuse what names no one entity: they throw the
/// replica's `ReplicaError.ambiguous` (listing the matches) or `ReplicaError.unknown`.
extension HyzerEngine {
    /// The player `text` names: its id, its exact name, or an unambiguous id prefix.
    public func player(matching text: String) async throws -> PlayerID {
        try await perform(.read) { PlayerID(try $0.resolvePlayer(text)) }
    }

    /// The device `text` names: its full id (even before its record has arrived, as a new watch
    /// is paired), its exact name, or an unambiguous id prefix, as `hyzer-peer group remove` and
    /// `device link` take it.
    public func device(matching text: String) async throws -> DeviceID {
        try await perform(.read) { try $0.resolveDevice(text) }
    }

    /// The course `text` names: its id, its exact name, or an unambiguous id prefix.
    public func course(matching text: String) async throws -> CourseID {
        try await perform(.read) { CourseID(try $0.resolveCourse(text)) }
    }

    /// The round `text` names: its id, an unambiguous id prefix, or `latest` for the round
    /// started most recently (`RoundError.noRoundYet` when there is none).
    public func round(matching text: String) async throws -> RoundID {
        try await perform(.read) { RoundID(try $0.resolveRound(text)) }
    }

    /// The participant of `round` that `text` names (a player's or guest's id, exact name in
    /// the round, or unambiguous id prefix). A registered player who does not play the round
    /// is refused with `ReplicaError.notAParticipant`.
    public func participant(matching text: String, in round: RoundID) async throws -> ParticipantID {
        try await perform(.read) { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return try replica.resolveParticipant(text, in: view.round).id
        }
    }

    /// The score event `text` names: its id or an unambiguous id prefix, among the score events
    /// of every round the store holds, as `correct(_:strokes:)` takes it. Refused with
    /// `ReplicaError.ambiguous` or `.unknown` (kind `event`).
    public func scoreEvent(matching text: String) async throws -> ScoreEventID {
        try await perform(.read) { ScoreEventID(try $0.resolveScoreEvent(text)) }
    }

    /// The late score of `round` that `text` names: its event id or an unambiguous id prefix,
    /// among the round's late events (`RoundEvaluation.lateEvents`), as
    /// `countLateScore(_:in:)` takes it. Refused with `ReplicaError.ambiguous` or `.unknown`
    /// (kind `late score`).
    public func lateScore(matching text: String, in round: RoundID) async throws -> ScoreEventID {
        try await perform(.read) { ScoreEventID(try $0.resolveLateScore(text, in: round.uuid)) }
    }

    /// The score event `id` of `round` as the round evaluates it now: its strokes and the
    /// events it supersedes. `nil` when the round holds no valid event with this id.
    public func scoreEvent(_ id: ScoreEventID, in round: RoundID) async throws -> ScoreEvent? {
        try await perform(.read) { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return view.evaluation.validEvents.first { $0.id == id.uuid }
        }
    }
}
