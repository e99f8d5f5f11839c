import Foundation

/// What a device joining a group proves with its invitation token (docs/security.md,
/// "Invitations"): the invitation's signing key, which only the token's secret derives, signs
/// that `device` asks to be admitted with invitation `invite` of group `group`. The device
/// sends the signature in its join request, and the member that admits it records it in the
/// admission op (kind 22), so every member can check that a holder of the token asked for that
/// very device, and no member can write a use of an invitation it does not hold.
public enum JoinProof {
    /// `"hyzer-join/v1" ‖ 0x00 ‖ group id:16 ‖ invitation id:16 ‖ device:32`.
    public static func message(group: UUID, invite: [UInt8], device: AuthorID) -> [UInt8] {
        Array("hyzer-join/v1".utf8) + [0] + withUnsafeBytes(of: group.uuid) { Array($0) } + invite + device.bytes
    }
}
