/// A device that continues another one under a new key (`device continue`): the successor
/// owns every player the predecessor owns, from the moment the succession op is known,
/// identically on every replica.
public struct DeviceSuccession: Hashable, Sendable {
    /// The device's old key.
    public let predecessor: AuthorID
    /// The device's new key, which owns what `predecessor` owns.
    public let successor: AuthorID

    /// `successor` continuing `predecessor`.
    public init(predecessor: AuthorID, successor: AuthorID) {
        self.predecessor = predecessor
        self.successor = successor
    }

    /// What the predecessor's key signs: a domain-separation prefix and the successor's key.
    public static func message(successor: AuthorID) -> [UInt8] {
        Array("hyzer-succession/v1".utf8) + [0] + successor.bytes
    }
}
