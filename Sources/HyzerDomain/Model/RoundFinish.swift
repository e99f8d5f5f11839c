import Foundation

/// A request to finish a round, written by `round finish`. It counts only when its device
/// owns the round's organizer.
public struct RoundFinish: Hashable, Sendable {
    /// The round to finish.
    public let roundID: UUID
    /// The replica that wrote the finish.
    public let deviceID: AuthorID
    /// When the finish was written, by its replica's clock.
    public let createdAt: HLCTimestamp
    /// Written with `--force`: finishing with scores missing.
    public let force: Bool
    /// What the finishing device held of each author that scored in the round (op kind 16);
    /// `nil` for finishes of kind 9, whose cutoff is their stamp.
    public let covered: [AuthorID: UInt64]?

    /// A finish of `roundID` by `deviceID`, covering `covered` (kind 16) or its stamp (kind 9, `nil`).
    public init(roundID: UUID, deviceID: AuthorID, createdAt: HLCTimestamp, force: Bool, covered: [AuthorID: UInt64]? = nil) {
        self.covered = covered
        self.roundID = roundID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.force = force
    }
}
