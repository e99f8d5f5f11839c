import Foundation

/// What is wrong with an invitation or its token (docs/security.md, "Invitations").
public enum InvitationError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// An invitation for `uses` devices, outside 1...`limit`.
    case usesOutOfRange(uses: Int, limit: Int)
    /// A token of the older kind that carried the group secret itself.
    case olderToken
    /// Text that is not an invite token.
    case notAToken
    /// A token whose checksum does not match: it was copied wrongly.
    case damagedToken
    /// The member refused to admit this device.
    case refused(AdmissionRefusal)
    /// The member's answer does not open with this device's key.
    case answerNotForThisDevice

    /// The message, the same as `description`.
    public var errorDescription: String? { description }

    /// One sentence that says what failed and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .usesOutOfRange(_, let limit): "an invitation admits 1 to \(limit) devices"
        case .olderToken: "that token is from an older release and holds the group secret itself; ask a member for a new one"
        case .notAToken: "that is not an invite token; copy the whole token a member's invitation printed"
        case .damagedToken: "the invite token is damaged (its checksum does not match); copy it again"
        case .refused(let refusal): refusal.description
        case .answerNotForThisDevice: "the member's answer does not open with this device's key"
        }
    }
}
