import HyzerCrypto
import HyzerKit
import HyzerSync

extension FuzzFixtures {
    /// The dialer (key 4) or listener (key 5) of the fuzzed handshakes, with fixed ephemeral
    /// keys: every process, the handshake target's and the corpus writer's, sends the same
    /// messages, so the checked-in identity messages open in the target.
    public static func handshake(_ role: Handshake.Role, group: GroupMembership = group) -> Handshake {
        let keys = handshakeKeys(role)
        let ephemeral = KeyExchange(seed: [UInt8](repeating: role == .dialer ? 0x44 : 0x55, count: KeyExchange.seedBytes))
        return Handshake(role: role, author: author(keys), sign: { keys.sign($0) }, group: group, ephemeral: ephemeral)
    }

    /// The identity key of the handshake's `role`.
    public static func handshakeKeys(_ role: Handshake.Role) -> SigningKeyPair {
        role == .dialer ? keys(4) : keys(5)
    }
}
