import Foundation

/// A request to finish a round, written by `round finish`. It counts only when its device
/// owns the round's organizer.
public struct RoundFinish: Hashable, Sendable {
    public let roundID: UUID
    public let deviceID: AuthorID
    public let createdAt: HLCTimestamp
    /// Written with `--force`: finishing with scores missing.
    public let force: Bool

    public init(roundID: UUID, deviceID: AuthorID, createdAt: HLCTimestamp, force: Bool) {
        self.roundID = roundID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.force = force
    }
}
