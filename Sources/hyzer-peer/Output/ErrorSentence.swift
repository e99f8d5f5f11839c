import Foundation
import HyzerEngine
import HyzerKit
import HyzerWeb

/// The one place the command line words the library's errors (docs/architecture.md, "Errors"):
/// the library's messages name no command or flag, so where a flag or a command to run helps,
/// the sentence here adds it. Every other error keeps the library's own message.
enum ErrorSentence {
    /// The sentence printed after `error: ` for `error`, or `nil` for an error this command
    /// line does not word (ArgumentParser's own, which it prints itself).
    static func sentence(for error: any Error) -> String? {
        switch error {
        case let error as ReplicaError: "\(error)"
        case let error as CommandLineError: "\(error)"
        case let error as GroupError: sentence(error)
        case let error as InvitationError: sentence(error)
        case let error as InputError: sentence(error)
        case let error as RoundError: sentence(error)
        case let error as CorrectionError: sentence(error)
        case let error as CardError: sentence(error)
        case let error as UDiscImportError: sentence(error)
        case let error as ViewingTokenError: sentence(error)
        case let error as EngineError: error.errorDescription
        default: nil
        }
    }

    static func sentence(_ error: GroupError) -> String {
        switch error {
        case .alreadyInGroup(let current):
            "this replica already belongs to group \(current.lowercased); use a new store (`hyzer-peer init --store DIR`) for another group"
        case .awaitingAdmission(let group):
            "this device accepted an invitation to group \(group.lowercased), but no member has admitted it yet; run `hyzer-peer sync --peer HOST:PORT` or `hyzer-peer sync --folder DIR` with a member first"
        case .noGroup(.sync):
            "this replica belongs to no group, and sync needs one; run `hyzer-peer group create`, or `hyzer-peer group join TOKEN` with a token from `group invite`"
        case .noGroup(.members):
            "this replica belongs to no group; run `hyzer-peer group create`, or `hyzer-peer group join TOKEN`"
        case .noGroup(.invite):
            "this replica belongs to no group, so it has nobody to invite; run `hyzer-peer group create` first"
        case .alreadyMember, .noGroup(.removeOrRekey), .organizerCannotRemoveItself, .rekeysExhausted, .tooManyDevicesToRekey:
            error.description
        }
    }

    static func sentence(_ error: InvitationError) -> String {
        switch error {
        case .olderToken:
            "that token is from an older hyzer-peer and holds the group secret itself; ask a member for a new one (`hyzer-peer group invite`)"
        case .notAToken: "that is not a hyzer-peer invite token; copy the whole line that `hyzer-peer group invite` printed"
        case .refused(let refusal): refusal.description
        case .usesOutOfRange, .damagedToken, .answerNotForThisDevice: error.description
        }
    }

    static func sentence(_ error: InputError) -> String {
        switch error {
        case .parCountOutOfRange(_, let limit): "a course has 1 to \(limit) holes; give one par per hole, like --pars 3,3,4"
        case .emptyName, .nameHasSurroundingSpaces, .nameTooLong, .nameHasControlCharacters, .holeCountOutOfRange, .parOutOfRange:
            error.description
        }
    }

    static func sentence(_ error: RoundError) -> String {
        switch error {
        case .noParticipants: "a round needs at least one player: use --players A,B or --guest NAME"
        case .noOrganizer: "name the round's organizer with --organizer PLAYER (this device has no owner)"
        case .guestNamedTwice(let guest):
            "the guest name '\(guest)' is given twice; give each guest a distinct name, like --guest '\(guest) K'"
        case .guestNamesPlayer(let guest, let player):
            "the guest name '\(guest)' is the name of player \(player) in this round; give the guest a distinct name, like --guest '\(guest) K'"
        case .noRoundYet: "there is no round yet; start one with `hyzer-peer round start`"
        case .playerListedTwice, .tooManyParticipants: error.description
        }
    }

    static func sentence(_ error: CorrectionError) -> String {
        switch error {
        case .alreadyCorrected(let event):
            "event \(event) was already corrected; correct the newer event instead (see `hyzer-peer breakdown`)"
        case .notAValidScore: error.description
        }
    }

    static func sentence(_ error: CardError) -> String {
        switch error {
        case .everyHoleScored(let round): "every hole of round \(round) has a score; name the hole with --hole N"
        case .noParticipantMatches(let text, let round):
            "'\(text)' matches no participant of round \(round); the participants are listed by `hyzer-peer round show \(round)`"
        case .aliasTaken, .unreadable, .participantTwice, .strokesOutOfRange, .ambiguousName: error.description
        }
    }

    static func sentence(_ error: UDiscImportError) -> String {
        switch error {
        case .row(let row, .parsOutOfRange(let holesMax, let parRange)):
            "row \(row) has pars hyzer-peer cannot hold: 1 to \(holesMax) holes of par \(parRange.lowerBound) to \(parRange.upperBound)"
        case .row(let row, .unusablePlayerName(let name)): "row \(row) has an unusable player name (\(sentence(name)))"
        case .noOwner:
            "imported rounds are organized by this device's owner, and it has none; create the store with `init --owner NAME`"
        case .notCSV, .notAScorecardHeader, .noHoleColumns, .row, .ambiguousPlayer, .playerTwiceInRound: error.description
        }
    }

    static func sentence(_ error: ViewingTokenError) -> String {
        switch error {
        case .notASalt(let path): "\(path) is not a viewing-token salt; remove it, or run `serve` with --rotate-view-token"
        case .cannotWrite, .cannotReplace: error.description
        }
    }
}
