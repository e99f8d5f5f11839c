import Foundation
import HyzerDomain
import HyzerKit

/// Finding ids by name: explicit calls that return every match, never a guess. Names compare
/// folded (case, accents and surrounding spaces aside), as a quick card matches them
/// (docs/domain.md).
extension HyzerEngine {
    /// Every registered player whose name is `name`, in the store's order of names then ids.
    /// Empty when none is; several when players share the name.
    public func players(named name: String) async throws -> [PlayerID] {
        let folded = NameFolding.folded(name)
        return try await perform(.read) { replica in
            try replica.players().filter { NameFolding.folded($0.displayName) == folded }.map { PlayerID($0.id) }
        }
    }

    /// Every course not deleted whose name is `name`.
    public func courses(named name: String) async throws -> [CourseID] {
        let folded = NameFolding.folded(name)
        return try await perform(.read) { replica in
            try replica.courses().filter { NameFolding.folded($0.name) == folded }.map { CourseID($0.id) }
        }
    }

    /// Every participant of `round` (player or guest) whose name in the round is `name`.
    /// Throws `ReplicaError.unknown` for an unknown round.
    public func participants(named name: String, in round: RoundID) async throws -> [ParticipantID] {
        let folded = NameFolding.folded(name)
        return try await participants(of: round).filter { NameFolding.folded($0.name) == folded }.map(\.id)
    }

    /// The participants of `round` with their names, in the order the round lists them.
    public func participants(of round: RoundID) async throws -> [(id: ParticipantID, name: String)] {
        let participants = try await perform(.read) { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return view.round.participants
        }
        return participants.map { ($0.id, $0.name) }
    }

    /// Every registered player, in the store's order of names then ids.
    public func players() async throws -> [Player] {
        try await perform(.read) { try $0.players() }
    }

    /// The player with `id`, if the store holds it.
    public func player(_ id: PlayerID) async throws -> Player? {
        try await perform(.read) { try $0.players().first { $0.id == id.uuid } }
    }
}
