import Foundation
import HyzerDomain
import Testing

@testable import HyzerKit

/// The library's typed errors (docs/architecture.md, "Errors") speak to any app: no message names
/// a command-line flag or a `hyzer-peer` command to run, and `localizedDescription` is the message.
@Suite struct ErrorWordingTests {
    static let group = UUID(uuidString: "6f1c2a4e-0000-4000-8000-000000000001")!
    static let parseError: QuickCard.ParseError = {
        do throws(QuickCard.ParseError) {
            _ = try QuickCard(parsing: "")
        } catch {
            return error
        }
        fatalError("an empty card parses")
    }()

    static let errors: [any Error & CustomStringConvertible] =
        [
            GroupError.alreadyInGroup(current: group), .alreadyMember(group: group), .awaitingAdmission(group: group),
            .noGroup(.sync), .noGroup(.members), .noGroup(.removeOrRekey), .noGroup(.invite), .organizerCannotRemoveItself,
            .rekeysExhausted, .tooManyDevicesToRekey(limit: 500),
        ]
        + [
            InvitationError.usesOutOfRange(uses: 0, limit: 100), .olderToken, .notAToken, .damagedToken, .refused(.notThisGroup),
            .refused(.unknownInvitation), .refused(.badProof), .refused(.expired(at: 1_800_000_000_000)), .refused(.usedUp(uses: 1)),
            .refused(.removed), .answerNotForThisDevice,
        ]
        + [
            InputError.emptyName(kind: "player"), .nameHasSurroundingSpaces(kind: "course"), .nameTooLong(kind: "guest", limit: 200),
            .nameHasControlCharacters(kind: "alias"), .holeCountOutOfRange(holes: 40, limit: 36),
            .parCountOutOfRange(count: 0, limit: 36), .parOutOfRange(par: 8, range: 2...7),
        ]
        + [
            RoundError.playerListedTwice("Ava"), .noParticipants, .tooManyParticipants(limit: 50), .noOrganizer,
            .guestNamedTwice(guest: "Kim"), .guestNamesPlayer(guest: "Ava", player: "Ava"), .noRoundYet,
        ]
        + [CorrectionError.notAValidScore(event: "0a1b"), .alreadyCorrected(event: "0a1b")]
        + [
            CardError.aliasTaken(alias: "Bo", player: "Ben"), .unreadable(parseError),
            .participantTwice(player: "Ava", first: "ava", second: "av"), .strokesOutOfRange(entry: "Ava 12", strokes: 12, hole: 3, par: 3),
            .everyHoleScored(round: "6f1c2a4e"), .noParticipantMatches(text: "Zed", round: "6f1c2a4e"),
            .ambiguousName(text: "Sa", candidates: ["Sam", "Sara"]),
        ]
        + [
            UDiscImportError.notCSV(detail: "an unclosed quote"), .notAScorecardHeader, .noHoleColumns, .noOwner,
            .ambiguousPlayer(row: 3, name: "Sam", matches: 2), .playerTwiceInRound(course: "Morley", date: "2026-11-27"),
        ]
        + [
            UDiscImportError.RowProblem.cellCount(cells: 3, header: 9), .noCourseName, .notAWholeNumber(text: "x", column: "Total"),
            .parGap, .parsOutOfRange(holesMax: 36, parRange: 2...7), .parTotalMismatch(total: nil, sum: 54),
            .dateTooLong(limit: 200), .noParRow(course: "Morley", layout: "Main", date: "2026-11-27"),
            .unusablePlayerName(.emptyName(kind: "player")), .strokesBeyondLayout(holes: 18),
            .strokesOutOfRange(name: "Ava", strokes: 11, hole: 2), .holeTotalMismatch(name: "Ava", total: 50, sum: 54),
            .plusMinusMismatch(name: "Ava", given: "+1", actual: 2), .playerTwice(name: "Ava", course: "Morley", date: "2026-11-27"),
            .tooManyPlayers(limit: 50),
        ].map { UDiscImportError.row(4, $0) }
        + replicaErrors.map { $0 as any Error & CustomStringConvertible }
        + admissionRefusals.map { $0 as any Error & CustomStringConvertible }

    /// Every case of `ReplicaError`: `everyReplicaCaseIsListed` fails when one is missing.
    static let replicaErrors: [ReplicaError] = [
        .storeExists(path: "/tmp/store"), .notAStore(path: "/tmp/empty"), .corruptStore(path: "/tmp/store", detail: "not a database"),
        .badKeyFile(path: "/tmp/store/key", detail: "too short"), .storage(detail: "disk full"), .storeBusy(holder: nil),
        .unknown(kind: "player", text: "Zed"), .unknown(kind: "participant", text: "Zed"), .unknown(kind: "event", text: "ffff"),
        .unknown(kind: "late score", text: "ffff"), .ambiguous(kind: "player", text: "Bo", matches: ["Bo A", "Bo B"]),
        .holeOutOfRange(hole: 19, holeCount: 18), .strokesOutOfRange(11), .notAParticipant(player: "Zed", round: "6f1c2a4e"),
        .roundCompleted(round: "6f1c2a4e"), .roundNotReady(round: "6f1c2a4e", missingScores: 3, disputedHoles: 1),
        .notYourEvent(event: "0a1b", device: "c3d4"), .notOrganizerDevice(round: "6f1c2a4e", organizer: "Ann"), .notOwner(player: "Ben"),
        .courseDeleted(name: "Morley"), .writtenElsewhere(author: "c3d4", forkedAt: nil), .writtenElsewhere(author: "c3d4", forkedAt: 7),
        .removedFromGroup(through: 12), .notGroupOrganizer,
    ]

    /// Every case of `AdmissionRefusal`: `everyRefusalIsListed` fails when one is missing.
    static let admissionRefusals: [AdmissionRefusal] = [
        .notThisGroup, .unknownInvitation, .badProof, .expired(at: 1_800_000_000_000), .usedUp(uses: 1), .usedUp(uses: 3), .removed,
    ]

    /// The case's name: a switch without `default`, so a new case does not compile until it is
    /// named here, and then `everyReplicaCaseIsListed` asks for it in `replicaErrors`.
    static func name(_ error: ReplicaError) -> String {
        switch error {
        case .storeExists: "storeExists"
        case .notAStore: "notAStore"
        case .corruptStore: "corruptStore"
        case .badKeyFile: "badKeyFile"
        case .storage: "storage"
        case .storeBusy: "storeBusy"
        case .unknown: "unknown"
        case .ambiguous: "ambiguous"
        case .holeOutOfRange: "holeOutOfRange"
        case .strokesOutOfRange: "strokesOutOfRange"
        case .notAParticipant: "notAParticipant"
        case .roundCompleted: "roundCompleted"
        case .roundNotReady: "roundNotReady"
        case .notYourEvent: "notYourEvent"
        case .notOrganizerDevice: "notOrganizerDevice"
        case .notOwner: "notOwner"
        case .courseDeleted: "courseDeleted"
        case .writtenElsewhere: "writtenElsewhere"
        case .removedFromGroup: "removedFromGroup"
        case .notGroupOrganizer: "notGroupOrganizer"
        }
    }

    /// The case's name, as for `ReplicaError`.
    static func name(_ refusal: AdmissionRefusal) -> String {
        switch refusal {
        case .notThisGroup: "notThisGroup"
        case .unknownInvitation: "unknownInvitation"
        case .badProof: "badProof"
        case .expired: "expired"
        case .usedUp: "usedUp"
        case .removed: "removed"
        }
    }

    @Test func everyReplicaCaseIsListed() {
        #expect(Set(Self.replicaErrors.map(Self.name)).count == 20)
    }

    @Test func everyRefusalIsListed() {
        #expect(Set(Self.admissionRefusals.map(Self.name)).count == 6)
    }

    /// A refusal reaches an app unchanged inside an invitation error.
    @Test func aRefusalInsideAnInvitationErrorIsTheRefusal() {
        for refusal in Self.admissionRefusals {
            #expect(InvitationError.refused(refusal).description == refusal.description)
        }
    }

    @Test(arguments: errors.map(\.description))
    func aMessageNamesNoFlagAndNoCommand(_ message: String) {
        #expect(!message.isEmpty)
        #expect(!message.contains("--"))
        #expect(!message.contains("hyzer-peer"))
        #expect(!message.contains("`"))
    }

    @Test func theLocalizedDescriptionIsTheMessage() {
        for error in Self.errors {
            #expect(error.localizedDescription == error.description)
        }
    }
}
