import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The token `group invite` prints and `group join` reads: the group id and secret, with a
/// checksum that catches a mistyped or truncated token.
///
/// `hyzer1-` ‖ hex(group id 16 ‖ secret 32 ‖ BLAKE2b-256(id ‖ secret)[0..<4])
public enum GroupInvite {
    static let prefix = "hyzer1-"

    public static func token(for group: GroupMembership) -> String {
        let body = group.id.bytes + group.secret
        return prefix + Hex.encode(body + Array(Blake2b.hash256(body).prefix(4)))
    }

    public static func membership(fromToken token: String) throws -> GroupMembership {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(prefix), let bytes = Hex.decode(String(trimmed.dropFirst(prefix.count))), bytes.count == 52 else {
            throw ReplicaError.invalidValue(
                "that is not a hyzer-peer invite token; copy the whole line that `hyzer-peer group invite` printed")
        }
        let body = Array(bytes.prefix(48))
        guard Array(Blake2b.hash256(body).prefix(4)) == Array(bytes.suffix(4)) else {
            throw ReplicaError.invalidValue("the invite token is damaged (its checksum does not match); copy it again")
        }
        return GroupMembership(id: UUID(bytes: body.prefix(16))!, secret: Array(body.suffix(32)))
    }

    /// A new group from the system's secure random source.
    public static func newGroup() -> GroupMembership {
        GroupMembership(id: UUID(hashPrefix: SecureRandom.bytes(16)), secret: SecureRandom.bytes(GroupMembership.secretBytes))
    }
}

/// Keys derived from a group's secret, one per use.
struct GroupKeys {
    /// Encrypts bundles and vectors written to shared folders.
    let fileKey: [UInt8]

    init(_ group: GroupMembership) {
        fileKey = KeyDerivation.subkey(of: group.secret, context: "hyzrfile", id: 1)
    }
}
