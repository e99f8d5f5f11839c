import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Everything a replica shows, as `--json` would print it: the standings, breakdowns and
/// discrepancies of every round, its courses, players and history. Converged replicas must
/// encode to the very same bytes (`JSONEncoder`, sorted keys).
struct ReplicaSnapshot: Encodable {
    struct RoundSnapshot: Encodable {
        let round: String
        let course: String
        let status: String
        let standings: [StandingsEntry]
        let breakdowns: [Breakdown]
        let discrepancies: [Discrepancy]
    }

    struct CourseSnapshot: Encodable {
        let id: String
        let name: String
        let pars: [Int]
        let deleted: Bool
    }

    struct PlayerSnapshot: Encodable {
        let id: String
        let name: String
    }

    let rounds: [RoundSnapshot]
    let courses: [CourseSnapshot]
    let players: [PlayerSnapshot]
    let history: [HistoryEntry]

    init(_ replica: Replica) throws {
        rounds = try replica.rounds()
            .sorted { $0.round.id.lowercased < $1.round.id.lowercased }
            .map { view in
                let evaluation = view.evaluation
                return RoundSnapshot(
                    round: view.round.id.lowercased, course: view.round.courseName, status: evaluation.status.rawValue,
                    standings: evaluation.standings,
                    breakdowns: evaluation.participants.compactMap { evaluation.breakdown(player: $0.id) },
                    discrepancies: evaluation.discrepancies)
            }
        courses = try replica.courses(includingDeleted: true)
            .map { CourseSnapshot(id: $0.id.lowercased, name: $0.name, pars: $0.pars, deleted: $0.deleted) }
            .sorted { $0.id < $1.id }
        players = try replica.players().map { PlayerSnapshot(id: $0.id.lowercased, name: $0.displayName) }.sorted { $0.id < $1.id }
        history = try replica.history(includingStandings: true)
    }

    /// The bytes `JSONEncoder` writes with sorted keys.
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }

    /// Where two snapshots first differ, for a failure's message.
    func firstDifference(from other: ReplicaSnapshot) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func same<T: Encodable>(_ lhs: T, _ rhs: T) throws -> Bool { try encoder.encode(lhs) == encoder.encode(rhs) }
        if rounds.count != other.rounds.count { return "round count \(rounds.count) vs \(other.rounds.count)" }
        for (lhs, rhs) in zip(rounds, other.rounds) {
            if try !same(lhs.standings, rhs.standings) { return "standings of round \(lhs.round.prefix(8))" }
            if try !same(lhs.breakdowns, rhs.breakdowns) { return "breakdowns of round \(lhs.round.prefix(8))" }
            if try !same(lhs.discrepancies, rhs.discrepancies) { return "discrepancies of round \(lhs.round.prefix(8))" }
            if lhs.status != rhs.status || lhs.course != rhs.course { return "status of round \(lhs.round.prefix(8))" }
        }
        for (lhs, rhs) in zip(courses, other.courses) where try !same(lhs, rhs) {
            return "course \(lhs.id.prefix(8)): '\(lhs.name)' \(lhs.pars) vs '\(rhs.name)' \(rhs.pars)"
        }
        if try !same(players, other.players) { return "players" }
        if try !same(history, other.history) { return "history" }
        return "courses"
    }
}
