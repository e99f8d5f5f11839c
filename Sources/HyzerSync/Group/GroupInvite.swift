import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The token `group invite` prints and `group join` reads: the group id and the newest epoch's
/// secret, with a checksum that catches a mistyped or truncated token.
///
/// epoch 0: `hyzer1-` ‖ hex(group id 16 ‖ secret 32 ‖ BLAKE2b-256(id ‖ secret)[0..<4])
/// later:   `hyzer2-` ‖ hex(group id 16 ‖ epoch u32 ‖ secret 32 ‖ BLAKE2b-256(id ‖ epoch ‖ secret)[0..<4])
public enum GroupInvite {
    static let prefix = "hyzer1-"
    static let rekeyedPrefix = "hyzer2-"

    public static func token(for group: GroupMembership) -> String {
        let body =
            group.epoch == 0
            ? group.id.bytes + group.secret : group.id.bytes + withUnsafeBytes(of: group.epoch.bigEndian) { Array($0) } + group.secret
        return (group.epoch == 0 ? prefix : rekeyedPrefix) + Hex.encode(body + Array(Blake2b.hash256(body).prefix(4)))
    }

    public static func membership(fromToken token: String) throws -> GroupMembership {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        let rekeyed = trimmed.hasPrefix(rekeyedPrefix)
        let bodyBytes = rekeyed ? 52 : 48
        guard trimmed.hasPrefix(prefix) || rekeyed, let bytes = Hex.decode(String(trimmed.dropFirst(prefix.count))),
            bytes.count == bodyBytes + 4
        else {
            throw ReplicaError.invalidValue(
                "that is not a hyzer-peer invite token; copy the whole line that `hyzer-peer group invite` printed")
        }
        let body = Array(bytes.prefix(bodyBytes))
        guard Array(Blake2b.hash256(body).prefix(4)) == Array(bytes.suffix(4)) else {
            throw ReplicaError.invalidValue("the invite token is damaged (its checksum does not match); copy it again")
        }
        let epoch = rekeyed ? body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
        return GroupMembership(id: UUID(bytes: body.prefix(16))!, secret: Array(body.suffix(32)), epoch: epoch)
    }

    /// A new group organized by `organizer`, with a secret from the system's secure random source.
    public static func newGroup(organizer: AuthorID) -> GroupMembership {
        GroupMembership(id: GroupMembership.groupID(organizer: organizer), secret: SecureRandom.bytes(GroupMembership.secretBytes))
    }
}

/// Keys derived from one epoch's group secret, one per use.
struct GroupKeys {
    /// Encrypts bundles and vectors written to shared folders.
    let fileKey: [UInt8]

    init(secret: [UInt8]) {
        fileKey = KeyDerivation.subkey(of: secret, context: "hyzrfile", id: 1)
    }
}
