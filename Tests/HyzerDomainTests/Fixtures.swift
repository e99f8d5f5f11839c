import Foundation
import HyzerDomain

/// Deterministic ids, devices, a round and score events for the rules tests.
enum Fixture {
    /// A UUID whose last two bytes are `number`: ids sort like their numbers.
    static func uuid(_ number: Int, prefix: UInt8 = 0) -> UUID {
        UUID(
            uuid: (prefix, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, UInt8(number >> 8 & 0xff), UInt8(number & 0xff))
        )
    }

    /// A device whose 32 key bytes are all `byte`: devices sort like their bytes.
    static func device(_ byte: UInt8) -> AuthorID {
        guard let id = AuthorID(bytes: [UInt8](repeating: byte, count: AuthorID.byteCount)) else {
            preconditionFailure("32 bytes always make an author id")
        }
        return id
    }

    static let organizerPhone = device(0x10)
    static let organizerWatch = device(0x11)
    static let annaPhone = device(0x20)
    static let benPhone = device(0x30)
    static let strangerPhone = device(0x90)

    /// Registered player `number`: ids sort like their numbers.
    static func player(_ number: Int) -> ParticipantID { ParticipantID(player: uuid(number, prefix: 0xA0)) }

    /// Guest `number`, of no fixture round: ids sort like their numbers.
    static func guest(_ number: Int) -> ParticipantID { ParticipantID(guest: uuid(number, prefix: 0xD0)) }

    static let olive = Participant(id: player(1), name: "Olive")
    static let anna = Participant(id: player(2), name: "Anna")
    static let ben = Participant(id: player(3), name: "Ben")
    static let gus = Participant(id: ParticipantID(guest: uuid(4, prefix: 0xA0)), name: "Gus")

    static let roundID = uuid(1, prefix: 0xB0)
    static let otherRoundID = uuid(2, prefix: 0xB0)

    /// Olive (organizer, phone and watch), Anna (phone) and Ben (phone) own themselves; the
    /// guest Gus has no device.
    static let ownership = Ownership(owners: [
        olive.id: [organizerPhone, organizerWatch],
        anna.id: [annaPhone],
        ben.id: [benPhone],
    ])

    /// A three-hole round (pars 3, 3, 4) organized by Olive, unless told otherwise.
    static func round(
        id: UUID = roundID, participants: [Participant] = [olive, anna, ben, gus], pars: [Int] = [3, 3, 4],
        startedAtMilliseconds: UInt64 = 1_000, courseName: String = "Morley Field"
    ) -> Round {
        Round(
            id: id, courseID: uuid(1, prefix: 0xC0), courseName: courseName, organizerID: olive.id,
            participants: participants, pars: pars,
            startedAt: HLCTimestamp(physicalMilliseconds: startedAtMilliseconds), startedBy: organizerPhone
        )
    }

    /// Score event number `number` (its id is `uuid(number)`), created at `milliseconds`.
    static func event(
        _ number: Int, _ player: Participant, hole: Int, strokes: Int, device: AuthorID, at milliseconds: UInt64,
        counter: UInt32 = 0, supersedes: [ScoreEvent] = [], round: UUID = roundID, reportedBy: Participant? = nil
    ) -> ScoreEvent {
        ScoreEvent(
            id: uuid(number), roundID: round, holeNumber: hole, playerID: player.id, strokeCount: strokes,
            supersedes: supersedes.map(\.id), reportedByPlayerID: reportedBy?.id, deviceID: device,
            createdAt: HLCTimestamp(physicalMilliseconds: milliseconds, counter: counter)
        )
    }

    static func finish(
        by device: AuthorID = organizerPhone, at milliseconds: UInt64, force: Bool = false, round: UUID = roundID
    ) -> RoundFinish {
        RoundFinish(
            roundID: round, deviceID: device, createdAt: HLCTimestamp(physicalMilliseconds: milliseconds), force: force
        )
    }

    static func evaluate(
        _ events: [ScoreEvent], finishes: [RoundFinish] = [], round: Round = round(), ownership: Ownership = ownership
    ) -> RoundEvaluation {
        RoundEvaluation(round: round, events: events, finishes: finishes, ownership: ownership)
    }

    /// One agreed score for every participant on every hole of `round`, `strokes(participant, hole)`.
    static func fullCard(
        round: Round = round(), firstNumber: Int = 1000, at milliseconds: UInt64 = 2_000,
        strokes: (Participant, Int) -> Int = { _, hole in hole == 3 ? 4 : 3 }
    ) -> [ScoreEvent] {
        var events: [ScoreEvent] = []
        for participant in round.participants {
            for hole in 1...round.holeCount {
                events.append(
                    event(
                        firstNumber + events.count, participant, hole: hole, strokes: strokes(participant, hole),
                        device: organizerPhone, at: milliseconds + UInt64(events.count), round: round.id
                    )
                )
            }
        }
        return events
    }

    static func encodedJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
