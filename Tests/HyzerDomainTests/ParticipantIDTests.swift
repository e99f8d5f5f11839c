import Foundation
import HyzerDomain
import Testing

/// A participant id: what text it takes, the text it keeps, and how it orders and encodes.
struct ParticipantIDTests {
    static let uuid = UUID(uuidString: "A0000000-0000-4000-8000-00000000002F")!

    @Test func aPlayerOrAGuestIsKeptAsLowercaseText() throws {
        let player = ParticipantID(player: Self.uuid)
        let guest = ParticipantID(guest: Self.uuid)
        #expect(player.description == "a0000000-0000-4000-8000-00000000002f" && !player.isGuest)
        #expect(guest.description == "guest:a0000000-0000-4000-8000-00000000002f" && guest.isGuest)
        #expect(player == .player(PlayerID(Self.uuid)) && guest == .guest(GuestID(Self.uuid)))
        #expect(player.player == PlayerID(Self.uuid) && player.guest == nil && player.uuid == Self.uuid)
        #expect(guest.guest == GuestID(Self.uuid) && guest.player == nil && guest.uuid == Self.uuid)
        #expect(ParticipantRef(participantID: guest) == .guest(Self.uuid) && ParticipantRef.guest(Self.uuid).participantID == guest)
    }

    @Test func textIsTakenInEitherCaseAndNothingElseIs() {
        #expect(ParticipantID(text: Self.uuid.uuidString) == ParticipantID(player: Self.uuid))
        #expect(ParticipantID(text: "guest:" + Self.uuid.uuidString) == ParticipantID(guest: Self.uuid))
        for junk in [
            "", "p", "guest:", "guest:x", "GUEST:" + Self.uuid.uuidString, "guest:guest:" + Self.uuid.lowercased,
            Self.uuid.lowercased + " ", "{\(Self.uuid.lowercased)}", Self.uuid.lowercased.replacingOccurrences(of: "-", with: ""),
            "a0000000-0000-4000-8000-00000000002g", "a0000000+0000-4000-8000-00000000002f",
        ] {
            #expect(ParticipantID(text: junk) == nil, "\(junk)")
        }
    }

    @Test func idsOrderAsTheirTextAndEncodeAsIt() throws {
        let ids = (0..<40).map { number in
            let uuid = UUID(uuid: (UInt8(number * 6), 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(number)))
            return number.isMultiple(of: 3) ? ParticipantID(guest: uuid) : ParticipantID(player: uuid)
        }
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
        let json = try JSONEncoder().encode(ids)
        #expect(try JSONDecoder().decode([String].self, from: json) == ids.map(\.description))
        #expect(try JSONDecoder().decode([ParticipantID].self, from: json) == ids)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ParticipantID.self, from: Data("\"p\"".utf8)) }
    }

    @Test func aByteEncodingKeepsTheTextAndRefusesAnythingElse() throws {
        var writer = ByteWriter()
        writer.write(ParticipantID(guest: Self.uuid))
        writer.write("p")
        var expected = ByteWriter()
        expected.write("guest:" + Self.uuid.lowercased)
        #expect(Array(writer.bytes.prefix(expected.bytes.count)) == expected.bytes)
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readParticipantID() == ParticipantID(guest: Self.uuid))
        #expect(throws: ByteDecodingError.outOfRange(field: "participant")) { try reader.readParticipantID() }
    }
}
