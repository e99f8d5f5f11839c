import Foundation
import HyzerEngine
import HyzerKit
import HyzerSync
import HyzerWeb

/// The one place the command line words the library's errors (docs/architecture.md, "Errors"):
/// the library's messages name no command or flag, so where a flag or a command to run helps,
/// the sentence here adds it. Every other error keeps the library's own message.
enum ErrorSentence {
    /// The sentence printed after `error: ` for `error`, or `nil` for an error this command
    /// line does not word (ArgumentParser's own, which it prints itself).
    static func sentence(for error: any Error) -> String? {
        switch error {
        case let error as ReplicaError: sentence(error)
        case let error as CommandLineError: sentence(error)
        case let error as GroupError: sentence(error)
        case let error as InvitationError: sentence(error)
        case let error as InputError: sentence(error)
        case let error as RoundError: sentence(error)
        case let error as CorrectionError: sentence(error)
        case let error as CardError: sentence(error)
        case let error as UDiscImportError: sentence(error)
        case let error as ViewingTokenError: sentence(error)
        case let error as EngineError: error.errorDescription
        // Sync through a bucket (docs/bucket-sync.md): each is already one sentence saying what to do.
        case BucketError.noSuchBucket(let bucket):
            "the bucket \(bucket) does not exist on this store: create it, or check the name, --endpoint and --region"
        case let error as BucketError: error.description
        case let error as BucketLocation.Invalid: error.description
        case let error as BucketCredentials.NotFound: error.description
        default: nil
        }
    }

    static func sentence(_ error: ReplicaError) -> String {
        switch error {
        case .storeExists(let path):
            "\(path) already holds a hyzer-peer store; choose another directory with --store, or use the existing one"
        case .notAStore(let path):
            "\(path) is not a hyzer-peer store; create one with `hyzer-peer init --name NAME --store \(path)`"
        case .unknown(let kind, let text):
            "no \(kind) matches '\(text)'; \(listingHint(kind))"
        case .notAParticipant(let player, let round):
            "\(player) is not playing round \(round); score one of its participants (see `hyzer-peer round show \(round)`)"
        case .roundNotReady(let round, let missing, let disputed):
            "round \(round) has \(missing) missing scores and \(disputed) disputed holes; score and resolve them, or finish with --force"
        case .courseDeleted(let name):
            "course \(name) was deleted; choose another course (`hyzer-peer course list`)"
        case .writtenElsewhere(let author, let forkedAt):
            "another copy of this store (restored from a backup, or copied) writes with this device's key \(author)"
                + (forkedAt.map { " and its log forked at op \($0)" } ?? "")
                + "; this copy no longer writes. Continue under a new device key linked to the same owner with `hyzer-peer device continue`"
        case .removedFromGroup(let through):
            "this device was removed from its group by the organizer (its ops up to \(through) still count); it can no longer write. Ask a member for a new invite and join with a new store (`hyzer-peer init --store DIR`)"
        case .notGroupOrganizer:
            "only the group's organizer (the device that ran `hyzer-peer group create`) may remove a member or rekey the group; run it there (a group created before groups had organizers has none: create a new one)"
        case .corruptStore, .badKeyFile, .storage, .storeBusy, .ambiguous, .holeOutOfRange, .strokesOutOfRange, .roundCompleted,
            .notYourEvent, .notOrganizerDevice, .notOwner:
            error.description
        }
    }

    /// Where the user finds the valid names of a kind of entity.
    private static func listingHint(_ kind: String) -> String {
        switch kind {
        case "participant": "the round's participants are listed by `hyzer-peer round show ROUND`"
        case "event": "use the event id that `hyzer-peer score` printed (or see `hyzer-peer discrepancies ROUND`)"
        case "late score": "the round's late scores are listed by `hyzer-peer discrepancies ROUND`"
        default: "list them with `hyzer-peer \(kind) list`"
        }
    }

    static func sentence(_ refusal: AdmissionRefusal) -> String {
        switch refusal {
        case .expired(let at):
            "the invitation expired at \(Date(timeIntervalSince1970: Double(at) / 1000).formatted(.iso8601)); ask a member for a new one (`hyzer-peer group invite`)"
        case .usedUp(let uses):
            "the invitation was already used by \(uses) device\(uses == 1 ? "" : "s"), all it allows; ask a member for a new one (`hyzer-peer group invite`)"
        case .removed: "the organizer removed this device from the group; join with a new store (`hyzer-peer init --store DIR`)"
        case .notThisGroup, .unknownInvitation, .badProof: refusal.description
        }
    }

    /// The command line's own errors word themselves, but for a member's refusal they carry.
    static func sentence(_ error: CommandLineError) -> String {
        switch error {
        case .refusedByMember(let refusal), .peerSync(.joinRefused(let refusal), _): "a member refused this device: \(sentence(refusal))"
        default: "\(error)"
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
        case .refused(let refusal): sentence(refusal)
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
