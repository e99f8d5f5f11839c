import HyzerCrypto
import HyzerDomain
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

    /// The organizer of `organizedGroup`: its removals are the ones a dialer of that group believes.
    public static let organizer = keys(6)
    /// A group with the fixture group's secret whose id names `organizer`.
    public static let organizedGroup = GroupMembership(id: GroupMembership.groupID(organizer: author(organizer)), secret: group.secret)

    /// The organizer's removal of the handshake's dialer, signed by `signer` (the organizer, or
    /// anyone else for a forgery), as the one-op segment a refusing listener shows.
    public static func removal(signedBy signer: SigningKeyPair) -> AuthorSegment {
        let op = SignedOp(
            keys: signer, author: author(signer), sequence: 1, previousHash: SignedOp.noPreviousHash,
            clock: HLCTimestamp(physicalMilliseconds: 1_717_200_000_000, counter: 0),
            payload: .memberRemoved(device: author(handshakeKeys(.dialer)), through: 3))
        return AuthorSegment(ops: [op])
    }

    /// The identity key of the handshake's `role`.
    public static func handshakeKeys(_ role: Handshake.Role) -> SigningKeyPair {
        role == .dialer ? keys(4) : keys(5)
    }
}
