import Foundation

/// Someone playing a round: a registered player (its id is the player's, as lowercase UUID text)
/// or one of the round's guests (`guest:` and the guest's UUID, in lowercase). The rules, the
/// views, the documents and the façade name a participant by it; its text (`description`) is
/// what views print, the round signature hashes and the documents write, and it encodes and
/// decodes as that text. Ids compare by their text's UTF-8 bytes, which for this text is the
/// order of `String`'s `<` too: views sort by it.
public struct ParticipantID: EntityID, Comparable {
    /// The id's text, always in the lowercase form: a UUID, or `guest:` and a UUID.
    private let text: String

    private init(canonical text: String) { self.text = text }

    /// The registered player `player` as a participant.
    public init(_ player: PlayerID) { self.init(canonical: player.uuid.lowercased) }

    /// The guest `guest` as a participant.
    public init(_ guest: GuestID) { self.init(canonical: Participant.guestPrefix + guest.uuid.lowercased) }

    /// The registered player with id `uuid`.
    public init(player uuid: UUID) { self.init(PlayerID(uuid)) }

    /// The guest with id `uuid` (the id the round gave it, without `guest:`).
    public init(guest uuid: UUID) { self.init(GuestID(uuid)) }

    /// The registered player `id` as a participant.
    public static func player(_ id: PlayerID) -> ParticipantID { ParticipantID(id) }

    /// The guest `id` as a participant.
    public static func guest(_ id: GuestID) -> ParticipantID { ParticipantID(id) }

    /// The participant `text` names: a player's UUID, or `guest:` and a guest's, in either
    /// case (kept in lowercase); `nil` for any other text. Text already in the lowercase form
    /// is kept as it is, without a copy.
    public init?(text: String) {
        if Self.isCanonical(text.utf8) {
            self.init(canonical: text)
        } else if text.hasPrefix(Participant.guestPrefix) {
            guard let guest = GuestID(text: text) else { return nil }
            self.init(guest)
        } else {
            guard let player = PlayerID(text: text) else { return nil }
            self.init(player)
        }
    }

    /// The id as views print it: a lowercase UUID, or `guest:` and a lowercase UUID.
    public var description: String { text }

    /// Whether the participant is a guest of the round rather than a registered player.
    public var isGuest: Bool { text.utf8.count != Self.uuidLength }

    /// The registered player, or `nil` for a guest.
    public var player: PlayerID? { isGuest ? nil : PlayerID(uuid) }

    /// The guest, or `nil` for a registered player.
    public var guest: GuestID? { isGuest ? GuestID(uuid) : nil }

    /// The player's or the guest's UUID, read back from the text's hexadecimal digits.
    public var uuid: UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        var nibble = 0
        for byte in text.utf8.suffix(Self.uuidLength) where byte != UInt8(ascii: "-") {
            let value = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            bytes[nibble / 2] |= nibble.isMultiple(of: 2) ? value << 4 : value
            nibble += 1
        }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// By the text's UTF-8 bytes, the same in every locale.
    public static func < (lhs: ParticipantID, rhs: ParticipantID) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    private static let uuidLength = 36

    /// Whether `bytes` are a lowercase `8-4-4-4-12` UUID, after `guest:` or alone.
    private static func isCanonical(_ bytes: String.UTF8View) -> Bool {
        let prefix = Participant.guestPrefix.utf8
        let uuid = bytes.starts(with: prefix) ? bytes.dropFirst(prefix.count) : bytes[...]
        guard uuid.count == uuidLength else { return false }
        for (offset, byte) in uuid.enumerated() {
            switch offset {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
