import Foundation
import HyzerCrypto
import HyzerDomain

/// A device with an invitation asks a member to admit it: written into the shared folder as
/// `hyzer/<group id>/joins/<device>.hzj`, or sent as the first frame of a TCP connection
/// (docs/formats.md, "Invitations").
///
/// `HZJ2` ‖ group id 16 ‖ invitation id 16 ‖ device 32 ‖ proof 64 ‖ HMAC-SHA-512-256(invitation key, all before)
///
/// `proof` is the signature of `JoinProof.message(group:invite:device:)` by the invitation's
/// signing key, which only the token's secret derives: the member records it in its admission
/// (op kind 22), so that every member can check that a holder of the token asked for that very
/// device, and no member can write a use of an invitation it does not hold. Requests of the
/// first layout (`HZJ1`, 100 bytes, no proof) are not read.
public struct JoinRequest: Equatable, Sendable {
    /// The group the device asks to join.
    public let groupID: UUID
    /// The id of the invitation the request proves, 16 bytes.
    public let invitationID: [UInt8]
    /// The device asking to be admitted.
    public let device: AuthorID
    /// The invitation signing key's signature of `JoinProof.message(group:invite:device:)`.
    public let proof: [UInt8]
    /// The whole message as sent.
    public let bytes: [UInt8]

    static let magic = Array("HZJ2".utf8)
    /// The length of every request.
    public static let byteCount =
        4 + 16 + OpPayload.Limits.inviteIDBytes + 32 + OpPayload.Limits.joinProofBytes + MessageAuthentication.tagBytes
    private static let bodyBytes = byteCount - MessageAuthentication.tagBytes

    /// The request of `device`, proven with `invitation`.
    public init(invitation: Invitation, device: AuthorID) {
        groupID = invitation.groupID
        invitationID = invitation.id
        self.device = device
        proof = invitation.signingKeys.sign(JoinProof.message(group: invitation.groupID, invite: invitation.id, device: device))
        let body = Self.magic + invitation.groupID.bytes + invitation.id + device.bytes + proof
        bytes = body + MessageAuthentication.tag(body, key: invitation.key)
    }

    /// Reads a request's fields; its proofs are checked by `proves(key:)` once the invitation is found.
    public init?(decoding bytes: [UInt8]) {
        guard bytes.count == Self.byteCount, Array(bytes.prefix(4)) == Self.magic,
            let groupID = UUID(bytes: bytes[4..<20]), let device = AuthorID(bytes: Array(bytes[36..<68]))
        else { return nil }
        self.groupID = groupID
        invitationID = Array(bytes[20..<36])
        self.device = device
        proof = Array(bytes[68..<Self.bodyBytes])
        self.bytes = bytes
    }

    /// Whether the request was made with the invitation whose key is `key` and verifier is
    /// `verifier` (the signature is checked only once the key matched: a stranger's request
    /// costs no signature check).
    public func proves(key: [UInt8], verifier: [UInt8]) -> Bool {
        let body = Array(bytes.prefix(Self.bodyBytes))
        return MessageAuthentication.verify(Array(bytes.suffix(MessageAuthentication.tagBytes)), of: body, key: key)
            && JoinProof.verifies(proof, group: groupID, invite: invitationID, device: device, verifier: verifier)
    }
}

/// A member's answer to a join request: the newest epoch's group secret, sealed to the device's
/// key and authenticated with the invitation key, so that neither someone without the
/// invitation nor anyone but the device learns or forges it.
///
/// `HZA1` ‖ group id 16 ‖ device 32 ‖ epoch u32 ‖ sealed secret 80 ‖ HMAC-SHA-512-256(invitation key, all before)
public struct JoinAnswer: Equatable, Sendable {
    /// The group that admitted the device.
    public let groupID: UUID
    /// The admitted device.
    public let device: AuthorID
    /// The epoch whose secret is sealed in the answer.
    public let epoch: UInt32
    /// The group secret sealed to the device's key, 80 bytes.
    public let sealedSecret: [UInt8]
    /// The whole answer as sent.
    public let bytes: [UInt8]

    static let magic = Array("HZA1".utf8)
    /// The length of every answer.
    public static let byteCount = 4 + 16 + 32 + 4 + OpPayload.Limits.sealedSecretBytes + MessageAuthentication.tagBytes

    init(groupID: UUID, device: AuthorID, epoch: UInt32, sealedSecret: [UInt8], key: [UInt8]) {
        self.groupID = groupID
        self.device = device
        self.epoch = epoch
        self.sealedSecret = sealedSecret
        let body = Self.magic + groupID.bytes + device.bytes + withUnsafeBytes(of: epoch.bigEndian) { Array($0) } + sealedSecret
        bytes = body + MessageAuthentication.tag(body, key: key)
    }

    /// Reads an answer and checks it against `invitation`; `nil` for anything else.
    public init?(decoding bytes: [UInt8], invitation: Invitation) {
        guard bytes.count == Self.byteCount, Array(bytes.prefix(4)) == Self.magic else { return nil }
        let tagStart = bytes.count - MessageAuthentication.tagBytes
        guard MessageAuthentication.verify(Array(bytes[tagStart...]), of: Array(bytes[..<tagStart]), key: invitation.key),
            let groupID = UUID(bytes: bytes[4..<20]), groupID == invitation.groupID, let device = AuthorID(bytes: Array(bytes[20..<52]))
        else { return nil }
        self.groupID = groupID
        self.device = device
        epoch = bytes[52..<56].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        sealedSecret = Array(bytes[56..<tagStart])
        self.bytes = bytes
    }
}

/// Why a member did not admit a device (each names what to do).
public enum AdmissionRefusal: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// This replica belongs to no group, or to another one.
    case notThisGroup
    /// No invitation with the request's id is in this replica's log (yet).
    case unknownInvitation
    /// The request's proof does not match the invitation.
    case badProof
    /// The invitation expired at `at`, in Unix milliseconds of the member's clock.
    case expired(at: UInt64)
    /// The invitation already admitted `uses` devices, as many as it allows.
    case usedUp(uses: Int)
    /// The organizer removed the device.
    case removed

    /// The message, the same as ``description``.
    public var errorDescription: String? { description }

    /// One sentence that says why the member refused and what to do, naming no command or flag
    /// of the command line (which words these refusals itself).
    public var description: String {
        switch self {
        case .notThisGroup: "this device is not a member of the invitation's group"
        case .unknownInvitation:
            "this member does not hold the invitation yet: sync with the device that printed the token first, or ask a member for a new one"
        case .badProof: "the request does not prove the invitation (a damaged or forged request)"
        case .expired(let at):
            "the invitation expired at \(Date(timeIntervalSince1970: Double(at) / 1000).formatted(.iso8601)); ask a member for a new one"
        case .usedUp(let uses):
            "the invitation was already used by \(uses) device\(uses == 1 ? "" : "s"), all it allows; ask a member for a new one"
        case .removed: "the organizer removed this device from the group; join with a new store"
        }
    }
}

/// A member's refusal of a request that proved its invitation, authenticated like an answer
/// so that the device can trust the reason it prints.
///
/// `HZR1` ‖ group id 16 ‖ device 32 ‖ reason u8 (1 expired, 2 used up, 3 removed) ‖ value u64 ‖ HMAC(invitation key, all before)
enum JoinRefusal {
    static let magic = Array("HZR1".utf8)
    static let byteCount = 4 + 16 + 32 + 1 + 8 + MessageAuthentication.tagBytes

    static func encoded(_ refusal: AdmissionRefusal, groupID: UUID, device: AuthorID, key: [UInt8]) -> [UInt8]? {
        let (code, value): (UInt8, UInt64)
        switch refusal {
        case .expired(let at): (code, value) = (1, at)
        case .usedUp(let uses): (code, value) = (2, UInt64(uses))
        case .removed: (code, value) = (3, 0)
        case .notThisGroup, .unknownInvitation, .badProof: return nil
        }
        let body = magic + groupID.bytes + device.bytes + [code] + withUnsafeBytes(of: value.bigEndian) { Array($0) }
        return body + MessageAuthentication.tag(body, key: key)
    }

    static func decoded(_ bytes: [UInt8], invitation: Invitation, device: AuthorID) -> AdmissionRefusal? {
        guard bytes.count == byteCount, Array(bytes.prefix(4)) == magic else { return nil }
        let tagStart = bytes.count - MessageAuthentication.tagBytes
        guard MessageAuthentication.verify(Array(bytes[tagStart...]), of: Array(bytes[..<tagStart]), key: invitation.key),
            Array(bytes[4..<20]) == invitation.groupID.bytes, Array(bytes[20..<52]) == device.bytes
        else { return nil }
        let value = bytes[53..<61].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch bytes[52] {
        case 1: return .expired(at: value)
        case 2: return .usedUp(uses: Int(clamping: value))
        case 3: return .removed
        default: return nil
        }
    }
}

/// What a member made of a join request: the refusal, if any, and the bytes to send back (the
/// answer, an authenticated refusal, or nothing for a request that proved no invitation).
public struct Admission: Sendable {
    /// Why the member did not admit the device; `nil` when it admitted it.
    public let refusal: AdmissionRefusal?
    /// The bytes to send back; `nil` when nothing may be sent (a request that proved no invitation).
    public let reply: [UInt8]?

    static func admitted(_ answer: JoinAnswer) -> Admission { Admission(refusal: nil, reply: answer.bytes) }
}

/// What a member replied to this device's join request.
public enum JoinReply: Equatable, Sendable {
    /// The member admitted the device: the answer carries the sealed group secret.
    case admitted(JoinAnswer)
    /// The member refused the device, for the reason given.
    case refused(AdmissionRefusal)

    /// Reads a reply to `invitation`'s request by `device`; `nil` for anything that is neither
    /// (no reply can be trusted without the invitation key).
    public init?(decoding bytes: [UInt8], invitation: Invitation, device: AuthorID) {
        if let answer = JoinAnswer(decoding: bytes, invitation: invitation), answer.device == device {
            self = .admitted(answer)
        } else if let refusal = JoinRefusal.decoded(bytes, invitation: invitation, device: device) {
            self = .refused(refusal)
        } else {
            return nil
        }
    }
}
