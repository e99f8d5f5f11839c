import Foundation
import GRDB
import HyzerDomain

extension Replica {
    /// The player that `text` names (id, unambiguous id prefix, or exact name).
    public func resolvePlayer(_ text: String) throws -> UUID {
        try read { try Self.resolvePlayer(text, ViewReader(db: $0)) }
    }

    /// The device that `text` names: its full id (even before its device record arrived), an
    /// unambiguous id prefix, or its exact name.
    public func resolveDevice(_ text: String) throws -> AuthorID {
        try read { try Self.resolveDevice(text, ViewReader(db: $0)) }
    }

    /// The course that `text` names.
    public func resolveCourse(_ text: String) throws -> UUID {
        try read { try Self.resolveCourse(text, ViewReader(db: $0)) }
    }

    /// The round that `text` names: its id, an unambiguous id prefix, or `latest` for the most
    /// recently started round.
    public func resolveRound(_ text: String) throws -> UUID {
        try read { try Self.resolveRound(text, ViewReader(db: $0)) }
    }

    /// The participant of `round` that `text` names (player or guest id, prefix, or name).
    public func resolveParticipant(_ text: String, in round: Round) throws -> Participant {
        do {
            let id = try Resolver.resolve(
                text, among: round.participants.map { .init(id: $0.id.description, name: $0.name) }, kind: "participant")
            return round.participants.first { $0.id.description == id }!
        } catch ReplicaError.unknown {
            // A registered player who is not playing this round gets the more useful error.
            if let player = try? resolvePlayer(text), let name = try players().first(where: { $0.id == player })?.displayName {
                throw ReplicaError.notAParticipant(player: name, round: round.id.lowercased)
            }
            throw ReplicaError.unknown(kind: "participant", text: text)
        }
    }

    /// The score event that `text` names (its id or an unambiguous id prefix) among the score
    /// ops of every round, as `correct(event:strokes:)` resolves it: `ReplicaError.ambiguous` or
    /// `.unknown` (kind `event`) otherwise.
    public func resolveScoreEvent(_ text: String) throws -> UUID {
        try read { try Self.resolveScoreEvent(text, $0).event }
    }

    /// The late score of `round` that `text` names (its event id or an unambiguous id prefix),
    /// among the round's late events as `countLateScore(round:event:)` resolves it:
    /// `ReplicaError.ambiguous` or `.unknown` (kind `late score`) otherwise.
    public func resolveLateScore(_ text: String, in round: UUID) throws -> UUID {
        try read { db in
            let reader = ViewReader(db: db)
            guard let found = try reader.round(round) else { throw ReplicaError.unknown(kind: "round", text: round.lowercased) }
            return try Self.lateScore(text, in: try reader.evaluation(found, ownership: try reader.ownership(), merge: policies.merge)).id
        }
    }

    /// The event `text` names among every score op, with the round its op names (`nil` when the
    /// op's tail names none).
    static func resolveScoreEvent(_ text: String, _ db: Database) throws -> (event: UUID, round: UUID?) {
        // Every score op's event id (from its hash) and round (from its tail).
        var rounds: [UUID: UUID] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT o.hash, o.scoredRound FROM ops o WHERE \(Schema.anyScore)")) {
            guard let round: UUID = try row.decode(forColumn: "scoredRound") else { continue }
            rounds[UUID(hashPrefix: Array(try row.decode(Data.self, forColumn: "hash")))] = round
        }
        let event = UUID(
            uuidString: try Resolver.resolve(
                text, among: rounds.keys.sorted(by: UUID.precedes).map { .init(id: $0.lowercased, name: "") }, kind: "event"))!
        return (event, rounds[event])
    }

    /// The late event of `evaluation` that `text` names.
    static func lateScore(_ text: String, in evaluation: RoundEvaluation) throws -> ScoreEvent {
        let late = evaluation.lateEvents
        let id = try Resolver.resolve(text, among: late.map { .init(id: $0.id.lowercased, name: "") }, kind: "late score")
        guard let found = late.first(where: { $0.id.lowercased == id }) else { throw ReplicaError.unknown(kind: "late score", text: text) }
        return found
    }

    static func resolvePlayer(_ text: String, _ reader: ViewReader) throws -> UUID {
        let players = try reader.players()
        let id = try Resolver.resolve(text, among: players.map { .init(id: $0.id.lowercased, name: $0.displayName) }, kind: "player")
        return UUID(uuidString: id)!
    }

    static func resolveCourse(_ text: String, _ reader: ViewReader) throws -> UUID {
        let courses = try reader.courses()
        let id = try Resolver.resolve(text, among: courses.map { .init(id: $0.id.lowercased, name: $0.name) }, kind: "course")
        return UUID(uuidString: id)!
    }

    static func resolveRound(_ text: String, _ reader: ViewReader) throws -> UUID {
        let ids = try reader.roundIDs()
        if text == "latest" {
            guard let latest = ids.first else {
                throw RoundError.noRoundYet
            }
            return latest
        }
        let id = try Resolver.resolve(text, among: ids.map { .init(id: $0.lowercased, name: "") }, kind: "round")
        return UUID(uuidString: id)!
    }

    static func resolveDevice(_ text: String, _ reader: ViewReader) throws -> AuthorID {
        // A full id names a device even before its device record has arrived: that is how a
        // new watch is paired, by the id its `whoami` shows.
        if let full = AuthorID(hex: text) { return full }
        let devices = try reader.devices()
        let id = try Resolver.resolve(text, among: devices.map { .init(id: $0.id.hex, name: $0.name) }, kind: "device")
        return AuthorID(hex: id)!
    }
}
