import Foundation

/// What a replica refuses when a round starts or is looked up: its participants, its organizer,
/// a round that does not exist yet.
public enum RoundError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// The player named `text` is listed twice.
    case playerListedTwice(String)
    /// A round with neither players nor guests.
    case noParticipants
    /// More participants than a round holds.
    case tooManyParticipants(limit: Int)
    /// No organizer was named, and this device has no owner to default to.
    case noOrganizer
    /// Two guests whose names fold alike.
    case guestNamedTwice(guest: String)
    /// A guest whose name folds like a registered participant's.
    case guestNamesPlayer(guest: String, player: String)
    /// `latest` asked for on a replica that holds no round.
    case noRoundYet

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .playerListedTwice(let text): "\(text) is listed twice; name each player once"
        case .noParticipants: "a round needs at least one player or guest"
        case .tooManyParticipants(let limit): "a round has at most \(limit) participants"
        case .noOrganizer: "name the round's organizer (this device has no owner)"
        case .guestNamedTwice(let guest): "the guest name '\(guest)' is given twice; give each guest a distinct name"
        case .guestNamesPlayer(let guest, let player):
            "the guest name '\(guest)' is the name of player \(player) in this round; give the guest a distinct name"
        case .noRoundYet: "there is no round yet; start one"
        }
    }
}
