import Foundation

/// The total, locale-free orders every derived view sorts by, so that no output depends on
/// arrival order, on the locale, or on dictionary or set iteration order.
enum CanonicalOrder {
    /// Strings by their UTF-8 bytes: the same on every machine, whatever its locale.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// An optional string before any string when `nil`, otherwise by UTF-8 bytes.
    static func precedes(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): false
        case (nil, _): true
        case (_, nil): false
        case (let lhs?, let rhs?): precedes(lhs, rhs)
        }
    }

    /// UUIDs by their 16 bytes. This is the same order as their lowercase text
    /// (`uuidString.lowercased()`) compared byte by byte: the text is the bytes in hexadecimal
    /// with dashes at fixed places, and hexadecimal digits sort like the nibbles they stand for.
    static func precedes(_ lhs: UUID, _ rhs: UUID) -> Bool {
        withUnsafeBytes(of: lhs.uuid) { lhsBytes in
            withUnsafeBytes(of: rhs.uuid) { rhsBytes in
                lhsBytes.lexicographicallyPrecedes(rhsBytes)
            }
        }
    }

    /// Score events by `(createdAt, id)` — the order of leaves and of the "chosen" leaf of a
    /// dispute — then by every other field, so that even two different events forged with the
    /// same id and time have one order.
    static func precedes(_ lhs: ScoreEvent, _ rhs: ScoreEvent) -> Bool {
        if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
        if lhs.id != rhs.id { return precedes(lhs.id, rhs.id) }
        if lhs.deviceID != rhs.deviceID { return lhs.deviceID < rhs.deviceID }
        if lhs.roundID != rhs.roundID { return precedes(lhs.roundID, rhs.roundID) }
        if lhs.playerID != rhs.playerID { return lhs.playerID < rhs.playerID }
        if lhs.holeNumber != rhs.holeNumber { return lhs.holeNumber < rhs.holeNumber }
        if lhs.strokeCount != rhs.strokeCount { return lhs.strokeCount < rhs.strokeCount }
        if lhs.supersedes != rhs.supersedes {
            return lhs.supersedes.lexicographicallyPrecedes(rhs.supersedes, by: precedes)
        }
        return precedes(lhs.reportedByPlayerID?.description, rhs.reportedByPlayerID?.description)
    }

    /// Finishes by `(createdAt, deviceID)`, then unforced before forced, then round id.
    static func precedes(_ lhs: RoundFinish, _ rhs: RoundFinish) -> Bool {
        if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
        if lhs.deviceID != rhs.deviceID { return lhs.deviceID < rhs.deviceID }
        if lhs.force != rhs.force { return !lhs.force }
        return precedes(lhs.roundID, rhs.roundID)
    }
}
