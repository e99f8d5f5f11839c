import Foundation
import HyzerDomain
import HyzerKit

/// A round as a list of rounds shows it (`Query.rounds`, `Query.round(_:)`): typed ids, its
/// status as an enum, its participants. An app may cache it: it encodes and decodes as JSON.
public struct RoundListing: Identifiable, Hashable, Sendable, Codable {
    /// One participant of the round.
    public struct Participant: Identifiable, Hashable, Sendable, Codable {
        /// A registered player, or a guest of this round.
        public let id: ParticipantID
        /// The name the round lists them under.
        public let name: String
    }

    /// The round.
    public let id: RoundID
    /// The course it was started on.
    public let course: CourseID
    /// The course's name when the round started.
    public let courseName: String
    /// In progress, awaiting its finish, or completed.
    public let status: RoundStatus
    /// The participant whose devices may resolve disputes and finish the round.
    public let organizer: ParticipantID
    /// When the round started, by the starting device's clock.
    public let startedAt: Date
    /// Par of hole `n` at index `n - 1`.
    public let pars: [Int]
    /// The participants, in the order the round lists them.
    public let participants: [Participant]

    init(_ view: RoundView) {
        let round = view.round
        id = RoundID(round.id)
        course = CourseID(round.courseID)
        courseName = round.courseName
        status = view.evaluation.status
        organizer = round.organizerID
        startedAt = Date(timeIntervalSince1970: Double(round.startedAt.physicalMilliseconds) / 1_000)
        pars = round.pars
        participants = round.participants.map { Participant(id: $0.id, name: $0.name) }
    }
}

/// A registered player as a list of players shows it (`Query.players`).
public struct PlayerListing: Identifiable, Hashable, Sendable, Codable {
    /// The player.
    public let id: PlayerID
    /// The player's current name.
    public let name: String
    /// Other names a quick card accepts for the player, sorted.
    public let aliases: [String]
}

extension Query where Value == [RoundListing] {
    /// Every round, in progress and completed, most recently started first.
    public static var rounds: Query { Query { try $0.rounds().map(RoundListing.init) } }
}

extension Query where Value == RoundListing {
    /// `round`; throws `ReplicaError.unknown` when the store holds no such round.
    public static func round(_ round: RoundID) -> Query {
        Query { replica in
            guard let view = try replica.roundView(round.uuid) else { throw ReplicaError.unknown(kind: "round", text: round.description) }
            return RoundListing(view)
        }
    }
}

extension Query where Value == [PlayerListing] {
    /// Every registered player with their aliases, in the store's order of names then ids.
    public static var players: Query {
        Query { replica in
            let aliases = try replica.aliases()
            return try replica.players().map { PlayerListing(id: PlayerID($0.id), name: $0.displayName, aliases: aliases[$0.id] ?? []) }
        }
    }
}

extension Query where Value == [Device] {
    /// The devices this replica knows (its own and every one whose record reached it), by id.
    public static var devices: Query { Query { try $0.devices() } }
}
