import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// Who belongs to a group with an organizer (docs/security.md, "Membership"): the organizer,
/// every device a member admitted with an invitation and the device's own proof (op kind 22, or
/// kind 21 written by the organizer), and every signed successor (op kind 15) of a member. A
/// pure, order-free function of the ops held: a fixpoint from the organizer. An admission counts
/// when a member wrote it with a proof that the verifier of an invitation a member issued checks.
///
/// Ops of any other identity (a stranger) are kept in the log but count nowhere, and no rekey
/// is sealed to it. In a group whose organizer is not known (a random id from before organizers
/// existed, or an organizer whose ops have not arrived yet) every holder of the secret is a member.
///
/// The result is kept in the `members` table and in `authors.stranger`, which `Schema.counts`
/// reads; `refresh` recomputes both when an op that can change membership arrives.
enum Membership {
    /// The op kinds that can change who is a member: successions, invitations, admissions and
    /// removals (a removed device's admissions above its cut stop counting).
    static let kinds: Set<OpPayload.Kind> = [
        .deviceSucceeded, .memberRemoved, .inviteIssued, .memberAdmitted, .memberAdmittedWithProof, .inviteIssuedWithVerifier,
    ]

    /// Whether `op` can change membership.
    static func touches(_ op: SignedOp) -> Bool {
        guard let kind = op.parts.kindByte.flatMap(OpPayload.Kind.init(rawValue:)) else { return false }
        return kinds.contains(kind)
    }

    /// The organizer of this replica's group among the authors it holds, if any.
    static func organizer(_ db: Database) throws -> AuthorID? {
        guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) else { return nil }
        if let local = try Meta.get(.replica, in: db).flatMap({ AuthorID(bytes: $0) }), GroupMembership.isOrganizer(local, of: group) {
            return local
        }
        for author in try AuthorID.fetchAll(db.cachedStatement(sql: "SELECT key FROM authors WHERE headSequence > 0")) {
            if GroupMembership.isOrganizer(author, of: group) { return author }
        }
        return nil
    }

    /// One admission as the log holds it.
    struct Admission {
        let admitter: AuthorID
        let invite: [UInt8]
        let device: AuthorID
        /// Who issued the invitation with a verifier that checks the admission's proof (kind 22);
        /// empty for an admission of kind 21, which carries no proof.
        let vouchedBy: Set<AuthorID>
        let proven: Bool
    }

    /// The invitations in ops that count but for membership, by id: who issued each (kinds 20
    /// and 23), its key and expiry and uses, and the verifier of a kind 23.
    static func issued(_ db: Database) throws -> [[UInt8]: (
        issuers: Set<AuthorID>, verifier: [UInt8]?, key: [UInt8], expiresAt: UInt64, uses: Int
    )] {
        var issued: [[UInt8]: (issuers: Set<AuthorID>, verifier: [UInt8]?, key: [UInt8], expiresAt: UInt64, uses: Int)] = [:]
        for (author, payload) in try opsCountingButForMembership(kinds: [.inviteIssued, .inviteIssuedWithVerifier], db) {
            let id: [UInt8]
            let (key, verifier, expiresAt, uses): ([UInt8], [UInt8]?, UInt64, Int)
            switch payload {
            case .inviteIssued(let k, let e, let u): (id, key, verifier, expiresAt, uses) = (Invitation.id(ofKey: k), k, nil, e, u)
            case .inviteIssuedWithVerifier(let k, let v, let e, let u):
                (id, key, verifier, expiresAt, uses) = (Invitation.id(ofKey: k, verifier: v), k, v, e, u)
            default: continue
            }
            // Two issues of one id (a replayed token secret) keep the earliest expiry and the fewest uses.
            let earlier = issued[id]
            issued[id] = (
                (earlier?.issuers ?? []).union([author]), verifier, key, min(expiresAt, earlier?.expiresAt ?? .max),
                min(uses, earlier?.uses ?? .max)
            )
        }
        return issued
    }

    /// The admissions in ops that count but for membership, kinds 21 and 22; a kind 22 whose
    /// proof no issued verifier checks is left out.
    static func admissions(group: UUID, _ db: Database) throws -> [Admission] {
        let issued = try issued(db)
        return try opsCountingButForMembership(kinds: [OpPayload.Kind.memberAdmitted, .memberAdmittedWithProof], db).compactMap {
            author, payload in
            switch payload {
            case .memberAdmitted(let invite, let device):
                return Admission(admitter: author, invite: invite, device: device, vouchedBy: [], proven: false)
            case .memberAdmittedWithProof(let invite, let device, let proof):
                guard let invitation = issued[invite], let verifier = invitation.verifier,
                    JoinProof.verifies(proof, group: group, invite: invite, device: device, verifier: verifier)
                else { return nil }
                return Admission(admitter: author, invite: invite, device: device, vouchedBy: invitation.issuers, proven: true)
            default:
                return nil
            }
        }
    }

    /// The members of the group, or `nil` when its organizer is not known (every holder of the
    /// secret counts then).
    static func members(_ db: Database) throws -> Set<AuthorID>? {
        guard let organizer = try organizer(db), let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) else {
            return nil
        }
        var successions: [(predecessor: AuthorID, successor: AuthorID)] = []
        for (author, payload) in try opsCountingButForMembership(kinds: [.deviceSucceeded], db) {
            guard case .deviceSucceeded(let predecessor, let signature) = payload,
                Ed25519.verify(signature: signature, of: DeviceSuccession.message(successor: author), publicKey: predecessor.bytes)
            else { continue }
            successions.append((predecessor, author))
        }
        let admissions = try admissions(group: group, db)
        var members: Set<AuthorID> = [organizer]
        var changed = true
        while changed {
            changed = false
            for (predecessor, successor) in successions where members.contains(predecessor) {
                if members.insert(successor).inserted { changed = true }
            }
            // An admission counts from a member, with a proof that an invitation a member issued
            // checks; one without proof (kind 21) only from the organizer.
            for admission in admissions where members.contains(admission.admitter) {
                let counts = admission.proven ? !admission.vouchedBy.isDisjoint(with: members) : admission.admitter == organizer
                if counts, members.insert(admission.device).inserted { changed = true }
            }
        }
        return members
    }

    /// Recomputes the members, marks every other author a stranger (or none, when the
    /// organizer is not known), and rebuilds the views when an author's standing changed, so
    /// that every arrival order ends in the same views. Returns whether it changed.
    @discardableResult
    static func refresh(_ db: Database, _ registers: RegisterRule) throws -> Bool {
        let members = try members(db)
        let held = Set(try AuthorID.fetchAll(db.cachedStatement(sql: "SELECT device FROM members")))
        if held != members ?? [] {
            try db.execute(sql: "DELETE FROM members")
            for member in members ?? [] {
                try db.cachedStatement(sql: "INSERT INTO members (device) VALUES (?)").execute(arguments: [member])
            }
        }
        var changed = false
        // Only the columns migration v7-membership found, which runs this.
        enum Column: Int, CaseIterable { case id, key, stranger }
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Column.selection) FROM authors")) {
            let key: AuthorID = try row.value(Column.key)
            let stranger = members.map { !$0.contains(key) } ?? false
            guard try stranger != row.value(Column.stranger) else { continue }
            let id: Int64 = try row.value(Column.id)
            try db.cachedStatement(sql: "UPDATE authors SET stranger = ? WHERE id = ?").execute(arguments: [stranger, id])
            changed = true
        }
        if changed { try Materializer.rebuild(db, registers) }
        return changed
    }

    /// Whether a new author `key` starts as a stranger: the organizer is known and has not
    /// admitted it (yet).
    static func startsAsStranger(_ key: AuthorID, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: "SELECT EXISTS (SELECT 1 FROM members) AND NOT EXISTS (SELECT 1 FROM members WHERE device = ?)"),
            arguments: [Data(key.bytes)]) ?? false
    }

    /// Decoded ops of `kinds`, with their authors, that count but for membership.
    private static func opsCountingButForMembership(kinds: [OpPayload.Kind], _ db: Database) throws -> [(AuthorID, OpPayload)] {
        try StoredOp.fetchAll(db, where: "\(Schema.opKind(in: kinds)) AND \(Schema.countsButForMembership)").map {
            ($0.author, $0.payload)
        }
    }
}
