import FuzzDriver
import FuzzSupport
import HyzerKit

/// What a device with an invitation and a member exchange (docs/security.md, "Invitations").
/// The first byte picks what the rest is:
/// - 0: a token `group join` reads; an accepted token prints as itself.
/// - 1: a join request, decided by a real member store that issued `FuzzFixtures.invitation`;
///   whatever is admitted gets a reply that the invitation's holder reads as an answer for the
///   asking device.
/// - 2: a member's reply, as the invited device reads it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    switch mode {
    case 0:
        guard let invitation = try? Invitation(token: String(decoding: rest, as: UTF8.self)) else { return 0 }
        FuzzFixtures.require((try? Invitation(token: invitation.token)) == invitation, "a token names its invitation")
    case 1:
        guard let request = JoinRequest(decoding: rest) else { return 0 }
        do {
            let admission = try store.replica.admit(request)
            if admission.refusal == nil {
                let reply = JoinReply(
                    decoding: admission.reply ?? [], invitation: FuzzFixtures.invitation, device: request.device)
                FuzzFixtures.require(
                    { if case .admitted? = reply { true } else { false } }(), "an admission's reply is an answer for the device")
                try store.reset()
            }
        } catch {
            fatalError("the store failed: \(error)")
        }
    default:
        _ = JoinReply(decoding: rest, invitation: FuzzFixtures.invitation, device: FuzzFixtures.author(FuzzFixtures.joiner))
    }
    return 0
}

/// A member store that issued the fixture invitation, created when the process starts.
nonisolated(unsafe) private let store = FuzzFixtures.require {
    try FuzzStore { replica in
        _ = try replica.issueInvitation(secret: FuzzFixtures.invitation.secret, expiresAt: UInt64(Int64.max), uses: 2)
    }
}

FuzzDriver.run(fuzz)
