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
