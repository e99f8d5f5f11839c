import Foundation
import HyzerCrypto
import HyzerDomain

extension JoinProof {
    /// Whether `proof` is the signature of the invitation whose verifier is `verifier` over
    /// `device`'s request to join with `invite`.
    public static func verifies(_ proof: [UInt8], group: UUID, invite: [UInt8], device: AuthorID, verifier: [UInt8]) -> Bool {
        proof.count == OpPayload.Limits.joinProofBytes && verifier.count == OpPayload.Limits.inviteKeyBytes
            && Ed25519.verify(signature: proof, of: message(group: group, invite: invite, device: device), publicKey: verifier)
    }
}
