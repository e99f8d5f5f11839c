import HyzerDomain

/// Why a handshake failed. The connection is closed; nothing was exchanged.
public enum HandshakeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which kind of handshake message.
    public enum Message: Sendable, Equatable {
        /// The first message of either side: an ephemeral key and its group MAC.
        case hello
        /// The third or fourth: a device's key, its transcript signature and its lineage.
        case identity
    }

    /// The peer does not hold the group secret (or belongs to another group).
    case notAGroupMember
    /// A hello (message 1 or 2) or identity (message 3 or 4) of the wrong size.
    case wrongSize(Message, bytes: Int)
    /// The peer's ephemeral key is not a usable X25519 key.
    case invalidEphemeralKey
    /// The peer's identity signature does not verify.
    case badIdentitySignature
    /// The dialer's first message is one this listener verified before: a recording sent again.
    case replayedFirstMessage
    /// A message arrived when none was expected.
    case unexpectedMessage
    /// The peer proved its identity, but the group does not admit it: the organizer removed
    /// it, or it holds only an old group key that the newest was not sealed to.
    case notAdmitted(peer: AuthorID, removed: Bool)
    /// The listener refused this device and showed the organizer's signed removal of it (the
    /// device, or a key this store continued from): retrying changes nothing.
    case removedFromGroup(AuthorID)
    /// The listener refused this device with a removal that does not prove one: not signed by
    /// the group's organizer, of another device, or no removal at all.
    case unprovenRemoval

    /// Why the handshake failed, in one sentence.
    public var description: String {
        switch self {
        case .notAGroupMember: "the peer does not hold this group's secret"
        case .wrongSize(let message, let bytes): "malformed handshake message (\(message) of \(bytes) bytes)"
        case .invalidEphemeralKey: "malformed handshake message (ephemeral key)"
        case .badIdentitySignature: "the peer's identity signature does not verify"
        case .replayedFirstMessage: "the first handshake message was seen before (a replay)"
        case .unexpectedMessage: "a handshake message arrived out of turn"
        case .notAdmitted(let peer, let removed):
            removed
                ? "the peer, device \(peer.short), was removed from the group"
                : "the peer, device \(peer.short), holds only an old group key that the newest was not sealed to"
        case .removedFromGroup(let device):
            "the group's organizer removed this device (its signed removal of device \(device.short) was shown)"
        case .unprovenRemoval: "the peer refused this device with a removal the group's organizer did not sign for it"
        }
    }
}
