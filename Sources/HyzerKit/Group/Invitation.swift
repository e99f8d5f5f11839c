import Foundation
import HyzerCrypto
import HyzerDomain

/// An invitation to a group: what `group invite` prints as a token and `group join` reads.
/// It holds no group secret, only the group id and a one-time invitation secret. The secret
/// proves a join request to a member, which admits the device (sealing it the group secret)
/// only while the invitation the inviter recorded as an op has neither expired nor been used
/// up (docs/security.md, "Invitations").
///
/// token: `hyzer3-` ‖ hex(group id 16 ‖ secret 32 ‖ BLAKE2b-256(id ‖ secret)[0..<4])
public struct Invitation: Equatable, Sendable {
    /// The group the invitation admits to.
    public let groupID: UUID
    /// The invitation's secret, 32 bytes: whoever holds the token can prove the invitation.
    public let secret: [UInt8]

    static let prefix = "hyzer3-"
    /// The length of an invitation secret.
    public static let secretBytes = 32
    /// The prefixes of tokens from before invitations, which carried the group secret itself.
    static let secretBearingPrefixes = ["hyzer1-", "hyzer2-"]

    /// An invitation to `groupID` with `secret`, which must be 32 bytes (a precondition: any
    /// other length is a programming error and traps). Draw the secret from a secure random source.
    public init(groupID: UUID, secret: [UInt8]) {
        precondition(secret.count == Self.secretBytes, "an invitation secret has 32 bytes")
        self.groupID = groupID
        self.secret = secret
    }

    /// The key that proves a join request and authenticates its answer; the inviter records it
    /// in its `inviteIssued` op, so every member can check a request.
    public var key: [UInt8] { KeyDerivation.subkey(of: secret, context: "hyzrinvt", id: 1) }

    /// The key pair whose signature proves a join request came from a holder of the token
    /// (`JoinProof`): its seed is the secret's subkey 2. Members know only its public half, the
    /// verifier, from the invitation op (kind 23).
    public var signingKeys: SigningKeyPair { SigningKeyPair(seed: KeyDerivation.subkey(of: secret, context: "hyzrinvt", id: 2)) }

    /// The public half of `signingKeys`.
    public var verifier: [UInt8] { signingKeys.publicKey }

    /// The invitation's id: the first 16 bytes of BLAKE2b-256("hyzer-invite/v2" ‖ key ‖
    /// verifier), so that nobody can record another verifier for an invitation someone else issued.
    public var id: [UInt8] { Self.id(ofKey: key, verifier: verifier) }

    /// The id of an invitation of op kind 23 from its proof key and verifier (see `id`).
    public static func id(ofKey key: [UInt8], verifier: [UInt8]) -> [UInt8] {
        Array(Blake2b.hash256(Array("hyzer-invite/v2".utf8) + key + verifier).prefix(OpPayload.Limits.inviteIDBytes))
    }

    /// The id of an invitation of op kind 20 (no verifier): BLAKE2b-256("hyzer-invite/v1" ‖ key).
    public static func id(ofKey key: [UInt8]) -> [UInt8] {
        Array(Blake2b.hash256(Array("hyzer-invite/v1".utf8) + key).prefix(OpPayload.Limits.inviteIDBytes))
    }

    /// The token to hand to the invited device: `hyzer3-` and 104 hexadecimal digits.
    public var token: String {
        let body = groupID.bytes + secret
        return Self.prefix + Hex.encode(body + Array(Blake2b.hash256(body).prefix(4)))
    }

    /// Reads a token; surrounding white space is ignored.
    public init(token: String) throws(InvitationError) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if Self.secretBearingPrefixes.contains(where: trimmed.hasPrefix) {
            throw InvitationError.olderToken
        }
        guard trimmed.hasPrefix(Self.prefix), let bytes = Hex.decode(String(trimmed.dropFirst(Self.prefix.count))), bytes.count == 52
        else {
            throw InvitationError.notAToken
        }
        let body = Array(bytes.prefix(48))
        guard Array(Blake2b.hash256(body).prefix(4)) == Array(bytes.suffix(4)) else {
            throw InvitationError.damagedToken
        }
        self.init(groupID: UUID(bytes: body.prefix(16))!, secret: Array(body.suffix(32)))
    }
}
