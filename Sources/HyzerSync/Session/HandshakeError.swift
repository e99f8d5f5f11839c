import HyzerDomain

/// Why a handshake failed. The connection is closed; nothing was exchanged.
public enum HandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer does not hold the group secret (or belongs to another group).
    case notAGroupMember
    /// A handshake message of the wrong size or shape.
    case malformed(String)
    /// The peer's identity signature does not verify.
    case badIdentitySignature
    /// A message arrived when none was expected.
    case unexpectedMessage

    public var description: String {
        switch self {
        case .notAGroupMember: "the peer does not hold this group's secret"
        case .malformed(let what): "malformed handshake message (\(what))"
        case .badIdentitySignature: "the peer's identity signature does not verify"
        case .unexpectedMessage: "a handshake message arrived out of turn"
        }
    }
}
