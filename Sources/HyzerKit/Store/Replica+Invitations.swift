import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// Invitations (docs/security.md, "Invitations"): a member issues one as an op, the invited
/// device asks with a `JoinRequest`, a member admits it with a `JoinAnswer` while the
/// invitation is neither expired nor used up, each admission an op that every member counts.
extension Replica {
    /// Issues an invitation with `secret` (from the system's secure random source) that admits
    /// at most `uses` devices until `expiresAt` (ms since 1970): an op every member learns.
    public func issueInvitation(secret: [UInt8], expiresAt: UInt64, uses: Int) throws -> Invitation {
        guard (1...OpPayload.Limits.inviteUsesMax).contains(uses) else {
            throw InvitationError.usesOutOfRange(uses: uses, limit: OpPayload.Limits.inviteUsesMax)
        }
        return try write { db in
            guard let group = try membership(db) else {
                throw GroupError.noGroup(.invite)
            }
            let invitation = Invitation(groupID: group.id, secret: secret)
            try append(
                .inviteIssuedWithVerifier(key: invitation.key, verifier: invitation.verifier, expiresAt: expiresAt, uses: uses), in: db)
            return invitation
        }
    }

    /// Keeps `invitation` until a member's answer makes this replica a member.
    public func accept(_ invitation: Invitation) throws {
        try write { db in
            if let current = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) {
                throw current == invitation.groupID
                    ? GroupError.alreadyMember(group: current) : GroupError.alreadyInGroup(current: current)
            }
            try Meta.set(.invitation, invitation.groupID.bytes + invitation.secret, in: db)
        }
    }

    /// The invitation this replica accepted and has not been admitted with yet.
    public func pendingInvitation() throws -> Invitation? {
        try read { db in
            guard let bytes = try Meta.get(.invitation, in: db), bytes.count == 16 + Invitation.secretBytes,
                let id = UUID(bytes: bytes.prefix(16))
            else { return nil }
            return Invitation(groupID: id, secret: Array(bytes.suffix(Invitation.secretBytes)))
        }
    }

    /// This replica's request to be admitted, while it has a pending invitation.
    public func joinRequest() throws -> JoinRequest? {
        try pendingInvitation().map(joinRequest(for:))
    }

    /// This replica's request to be admitted with `invitation`.
    public func joinRequest(for invitation: Invitation) -> JoinRequest {
        JoinRequest(invitation: invitation, device: author)
    }

    /// Admits the requesting device if the invitation allows it now, recording the admission
    /// as an op, and returns the answer that makes it a member. A device this invitation
    /// already admitted gets the answer again (its first may have been lost) without a new op.
    /// A request that proves no invitation costs a read, never a write: anyone can send one.
    public func admit(_ request: JoinRequest) throws -> Admission {
        if case .failure(let refusal) = try read({ db in try proven(request, db) }) { return Admission(refusal: refusal, reply: nil) }
        return try write { db in
            let group: GroupMembership
            let invitation: RecordedInvitation
            switch try proven(request, db) {
            case .success(let found): (group, invitation) = found
            case .failure(let refusal): return Admission(refusal: refusal, reply: nil)
            }
            func refused(_ refusal: AdmissionRefusal) -> Admission {
                Admission(
                    refusal: refusal, reply: JoinRefusal.encoded(refusal, groupID: group.id, device: request.device, key: invitation.key))
            }
            guard !group.removed.contains(request.device) else { return refused(.removed) }
            guard let sealed = GroupMembership.seal(group.secret, to: request.device) else {
                return Admission(refusal: .badProof, reply: nil)  // not a valid Ed25519 key: nobody could open it
            }
            if !invitation.admitted.contains(request.device) {
                guard clock.nowMilliseconds() < invitation.expiresAt else { return refused(.expired(at: invitation.expiresAt)) }
                guard invitation.admitted.count < invitation.uses else { return refused(.usedUp(uses: invitation.uses)) }
                try append(.memberAdmittedWithProof(invite: request.invitationID, device: request.device, proof: request.proof), in: db)
            }
            return .admitted(
                JoinAnswer(groupID: group.id, device: request.device, epoch: group.epoch, sealedSecret: sealed, key: invitation.key))
        }
    }

    /// The proof keys of the invitations a member can admit with now (with a verifier, not
    /// expired, not used up), newest expiry first: what `serve` derives the join tags it
    /// advertises on the LAN from (docs/discovery.md, "Joining"). Empty outside a group.
    public func admittingInvitationKeys() throws -> [[UInt8]] {
        let now = clock.nowMilliseconds()
        return try read { db in
            guard try membership(db) != nil else { return [] }
            return try ViewReader(db: db).invitations().values
                .filter { $0.verifier != nil && now < $0.expiresAt && $0.admitted.count < $0.uses }
                .sorted { $0.expiresAt != $1.expiresAt ? $0.expiresAt > $1.expiresAt : $0.key.lexicographicallyPrecedes($1.key) }
                .map(\.key)
        }
    }

    /// The group and the invitation `request` proves, or why it proves nothing.
    private func proven(_ request: JoinRequest, _ db: Database) throws -> Result<(GroupMembership, RecordedInvitation), AdmissionRefusal> {
        guard let group = try membership(db), group.id == request.groupID else { return .failure(.notThisGroup) }
        // An invitation of kind 20 has no verifier: no member can check a use of it any more.
        guard let invitation = try ViewReader(db: db).invitations()[request.invitationID], let verifier = invitation.verifier else {
            return .failure(.unknownInvitation)
        }
        guard request.proves(key: invitation.key, verifier: verifier) else { return .failure(.badProof) }
        return .success((group, invitation))
    }

    /// Joins with `invitation` through `member`, a store this process holds (the demo's tour,
    /// the simulator's setup): the request, the member's admission and its answer, as a sync
    /// would carry them. Throws the member's refusal, if any.
    public func join(with invitation: Invitation, through member: Replica) throws {
        try accept(invitation)
        let admission = try member.admit(joinRequest(for: invitation))
        if let refusal = admission.refusal { throw InvitationError.refused(refusal) }
        guard let reply = admission.reply, case .admitted(let answer)? = JoinReply(decoding: reply, invitation: invitation, device: author),
            try complete(answer)
        else { throw InvitationError.answerNotForThisDevice }
    }

    /// Makes this replica a member with a member's answer to its request. `false` (and nothing
    /// changes) when the answer is not for this replica's pending invitation.
    public func complete(_ answer: JoinAnswer) throws -> Bool {
        guard let invitation = try pendingInvitation(), answer.groupID == invitation.groupID, answer.device == author,
            let secret = SealedBox.open(answer.sealedSecret, with: keys), secret.count == GroupMembership.secretBytes
        else { return false }
        try join(GroupMembership(id: answer.groupID, secret: secret, epoch: answer.epoch))
        try write { db in try Meta.remove(.invitation, in: db) }
        return true
    }
}

/// One invitation as the log records it: its key, verifier (kind 23), expiry and uses, and the
/// devices admitted with it so far.
struct RecordedInvitation {
    let key: [UInt8]
    let verifier: [UInt8]?
    let expiresAt: UInt64
    let uses: Int
    var admitted: Set<AuthorID> = []
}

extension ViewReader {
    /// Every invitation in the log by id, with its admissions, from the ops that count. Two
    /// issues of one id (a replayed token secret) keep the earliest expiry and the fewest uses.
    /// A use is an admission a member wrote with a proof the invitation's verifier checks (kind
    /// 22); an admission without proof (kind 21) is one only when the organizer wrote it
    /// (docs/formats.md, "Admissions").
    func invitations() throws -> [[UInt8]: RecordedInvitation] {
        let members = try Membership.members(db)
        var invitations: [[UInt8]: RecordedInvitation] = [:]
        for (id, issued) in try Membership.issued(db) where members.map({ !$0.isDisjoint(with: issued.issuers) }) ?? true {
            invitations[id] = RecordedInvitation(key: issued.key, verifier: issued.verifier, expiresAt: issued.expiresAt, uses: issued.uses)
        }
        guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) else { return invitations }
        for admission in try Membership.admissions(group: group, db) where members?.contains(admission.admitter) ?? true {
            if admission.proven || GroupMembership.isOrganizer(admission.admitter, of: group) {
                invitations[admission.invite]?.admitted.insert(admission.device)
            }
        }
        return invitations
    }
}
