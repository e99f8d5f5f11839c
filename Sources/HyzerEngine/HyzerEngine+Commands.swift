import Foundation
import HyzerDomain
import HyzerKit

/// The commands that change the store, by typed id. Each is one transaction of `Replica`'s
/// (docs/architecture.md, "The flow of a change"): a refused command changes nothing.
///
/// The replica's commands name entities by text, trying an exact id before a name; the engine
/// passes full ids, and first checks that each id exists (entities are never removed), so that
/// no name a peer chose can stand in for an id this device does not know.
extension HyzerEngine {
    /// Registers a player named `name` (1 to 64 characters, no control characters) and returns
    /// its id. Another player may have the same name: ids tell them apart.
    @discardableResult
    public func addPlayer(named name: String) async throws -> PlayerID {
        try await perform(.write) { PlayerID(try $0.addPlayer(name: name).id) }
    }

    /// Adds a course named `name` with `pars` (one par per hole, 1 to 99 holes) and returns its id.
    @discardableResult
    public func addCourse(named name: String, pars: [Int]) async throws -> CourseID {
        try await perform(.write) { CourseID(try $0.addCourse(name: name, pars: pars).id) }
    }

    /// Starts a round on `course` with the registered `players` and the `guests` (names of
    /// people who play this round only), copying the course's pars. The organizer, whose devices
    /// may resolve disputes and finish the round, is `organizer` or else this device's owner.
    @discardableResult
    public func startRound(
        on course: CourseID, players: [PlayerID], guests: [String] = [], organizer: PlayerID? = nil
    ) async throws -> RoundID {
        try await perform(.write) { replica in
            guard try replica.course(course.uuid) != nil else { throw ReplicaError.unknown(kind: "course", text: course.description) }
            try Self.requirePlayers(players + (organizer.map { [$0] } ?? []), replica)
            let round = try replica.startRound(
                course: course.description, players: players.map(\.description), guests: guests,
                organizer: organizer?.description)
            return RoundID(round.id)
        }
    }

    /// Records `strokes` (1 to 10) for `participant` on `hole` of `round` and returns the new
    /// event's id. When this device already scored that hole for them, the new event corrects
    /// its own earlier one, as re-entering a score on the same phone does.
    @discardableResult
    public func recordScore(round: RoundID, participant: ParticipantID, hole: Int, strokes: Int) async throws -> ScoreEventID {
        try await perform(.write) { replica in
            try Self.requireParticipant(participant, of: round, replica)
            return ScoreEventID(
                try replica.recordScore(round: round.description, player: participant.description, hole: hole, strokes: strokes).id)
        }
    }

    /// Corrects `event`, a score this device recorded that nothing has superseded yet, with
    /// `strokes`: a new event that supersedes it, whose id is returned.
    @discardableResult
    public func correct(_ event: ScoreEventID, strokes: Int) async throws -> ScoreEventID {
        try await perform(.write) { ScoreEventID(try $0.correct(event: event.description, strokes: strokes).id) }
    }

    /// The organizer's resolution of `participant`'s `hole`: one event with `strokes` that
    /// supersedes every current score of the hole, ending a dispute. Only a device owning the
    /// round's organizer may resolve.
    @discardableResult
    public func resolve(round: RoundID, participant: ParticipantID, hole: Int, strokes: Int) async throws -> ScoreEventID {
        try await perform(.write) { replica in
            try Self.requireParticipant(participant, of: round, replica)
            return ScoreEventID(
                try replica.resolve(round: round.description, player: participant.description, hole: hole, strokes: strokes).id)
        }
    }

    /// The organizer counts `event`, a late score of `round` (docs/rules.md, "Late scores"): one
    /// resolution of its participant's hole with its strokes that supersedes the hole's current
    /// scores and names it, whose id is returned. Only a device owning the round's organizer
    /// may; an event the round does not list as late is refused (`ReplicaError.unknown`).
    @discardableResult
    public func countLateScore(_ event: ScoreEventID, in round: RoundID) async throws -> ScoreEventID {
        try await perform(.write) { ScoreEventID(try $0.countLateScore(round: round.description, event: event.description).id) }
    }

    /// Finishes `round`. Only a device owning the organizer may; without `force`, every
    /// participant needs a score on every hole and no hole may be disputed
    /// (`ReplicaError.roundNotReady` says what is missing). This device then signs its receipt
    /// of the round, as every device that takes part does once the finish reaches it.
    public func finishRound(_ round: RoundID, force: Bool = false) async throws {
        _ = try await perform(.write) { replica in
            _ = try replica.finishRound(round.description, force: force)
            return try replica.signReceipts()
        }
    }

    /// Scores a whole hole of `round` from a quick card in words, like "Mike 3, Jake birdie,
    /// Sarah two" (docs/domain.md): names match forgivingly (case, accents, unambiguous
    /// prefixes, aliases), scores are strokes or ace, eagle, birdie, par, bogey, double bogey
    /// against the hole's par. `hole` defaults to the next hole nobody has scored. Anything
    /// ambiguous or unknown refuses the whole card (`CardError`).
    public func recordCard(_ text: String, round: RoundID, hole: Int? = nil) async throws -> RecordedCard {
        try await perform(.write) { replica in
            guard try replica.roundView(round.uuid) != nil else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return try replica.recordCard(round: round.description, text: text, hole: hole)
        }
    }

    /// Throws `ReplicaError.unknown` for the first of `players` the store does not hold.
    static func requirePlayers(_ players: [PlayerID], _ replica: Replica) throws {
        guard !players.isEmpty else { return }
        let known = Set(try replica.players().map(\.id))
        if let unknown = players.first(where: { !known.contains($0.uuid) }) {
            throw ReplicaError.unknown(kind: "player", text: unknown.description)
        }
    }

    /// Throws unless `participant` plays `round` (`ReplicaError.unknown` for an unknown round).
    static func requireParticipant(_ participant: ParticipantID, of round: RoundID, _ replica: Replica) throws {
        guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
        guard view.round.participants.contains(where: { $0.id == participant }) else {
            throw EngineError.notAParticipant(participant, round: round)
        }
    }
}
