import Foundation

/// What an op says: one change to the replica's state. Entities that an op creates (players,
/// courses, rounds, score events) take their id from that op's hash, so ids are unique and
/// unforgeable without a random source.
public enum OpPayload: Hashable, Sendable {
    /// The authoring device names itself (a last-writer-wins register per device).
    case deviceRegistered(name: String, kind: DeviceKind)
    /// A new player; the authoring device owns it.
    case playerCreated(displayName: String)
    /// A new display name for `playerID` (a last-writer-wins register).
    case playerRenamed(playerID: UUID, displayName: String)
    /// A new course with the par of each hole (its hole count is `pars.count`).
    case courseCreated(name: String, pars: [Int])
    /// A new name for `courseID` (a last-writer-wins register).
    case courseRenamed(courseID: UUID, name: String)
    /// The par of hole `hole` (1-based) of `courseID` (a last-writer-wins register per hole);
    /// rounds already started keep the pars they copied.
    case holeParSet(courseID: UUID, hole: Int, par: Int)
    /// The course's tombstone: no new round starts on it; rounds played on it stay.
    case courseDeleted(courseID: UUID)
    /// A round starts: participants are fixed here, and pars are copied from the course.
    case roundStarted(RoundStart)
    /// A round finishes, as older builds wrote it (new finishes are `roundFinishedCovering`): its
    /// cutoff is its stamp, and nothing is listed as late. `force` finishes with scores missing or
    /// disputed.
    case roundFinished(roundID: UUID, force: Bool)
    /// A participant's strokes on one hole: a first score, a correction or a resolution.
    case scoreRecorded(ScoreRecord)
    /// A device that owns `playerID` makes `device` an owner too.
    case deviceLinked(device: AuthorID, playerID: UUID)
    /// Another name `card` accepts for `playerID` ("Mikey" for Michael); aliases only add up.
    case playerAliasAdded(playerID: UUID, alias: String)
    /// A device that takes part in a finished round signs (with the op's own signature) the
    /// round's result as it sees it: `signature` is the round signature (docs/formats.md).
    case roundReceipt(roundID: UUID, signature: [UInt8])
    /// The course now has `holes` holes (a last-writer-wins register): pars of holes it keeps
    /// stay, new holes are par 3 until set; rounds keep the pars they copied.
    case courseHolesSet(courseID: UUID, holes: Int)
    /// The authoring device continues `predecessor` (a store restored from a backup or copied,
    /// whose old key must not write again): `signature` is the predecessor's Ed25519 signature
    /// of `DeviceSuccession.message(successor:)`. The successor owns what the predecessor owned.
    case deviceSucceeded(predecessor: AuthorID, signature: [UInt8])
    /// A round finishes, carrying what the finishing device held of each author that scored in
    /// the round: only score events that this holds count (resolutions aside), whatever their
    /// stamps say.
    case roundFinishedCovering(roundID: UUID, force: Bool, covered: [AuthorID: UInt64])
    /// The group's organizer removes `device`: its ops up to `through` (what the organizer
    /// held of it) still count, none above do, on every replica (docs/security.md).
    case memberRemoved(device: AuthorID, through: UInt64)
    /// The group's organizer replaces the group secret: `sealed` holds the new secret of
    /// `epoch`, sealed to each remaining member's key (docs/security.md, "Re-keying").
    case groupRekeyed(epoch: UInt32, sealed: [AuthorID: [UInt8]])
    /// The round was imported from a UDisc scorecard export: the dates its rows carry, as
    /// written there (`endDate` empty when the export has only one date), so an export writes
    /// them again. Counts only from the device that started the round.
    case roundImported(roundID: UUID, startDate: String, endDate: String)
    /// A member invites a device (docs/security.md, "Invitations"): a token holder proves the
    /// invitation with `key` (32 bytes derived from the token's secret); a member admits at most
    /// `uses` devices with it, and none once its clock has passed `expiresAt` (ms since 1970).
    case inviteIssued(key: [UInt8], expiresAt: UInt64, uses: Int)
    /// A member admitted `device` with the invitation whose id (16 bytes) is `invite`, and
    /// sealed the group secret to it: one use of that invitation.
    case memberAdmitted(invite: [UInt8], device: AuthorID)
    /// A member admitted `device` with the invitation `invite`; `proof` is the signature of
    /// `JoinProof.message(group:invite:device:)` by the invitation's signing key, which only a
    /// holder of the token has, as the device sent it in its join request: no member can write a
    /// use of an invitation it does not hold. Replaces kind 21 (docs/formats.md, "Admissions").
    case memberAdmittedWithProof(invite: [UInt8], device: AuthorID, proof: [UInt8])
    /// An invitation as kind 20, with `verifier`: the public half of the Ed25519 key pair the
    /// token's secret derives, which checks the proofs of admissions (kind 22). Its id covers
    /// both keys (`Invitation.id`). Replaces kind 20.
    case inviteIssuedWithVerifier(key: [UInt8], verifier: [UInt8], expiresAt: UInt64, uses: Int)

    /// The one-byte tag of each kind in the canonical encoding. Never renumber a kind.
    public enum Kind: UInt8, CaseIterable, Sendable {
        /// The tag of `deviceRegistered` ops.
        case deviceRegistered = 1
        /// The tag of `playerCreated` ops.
        case playerCreated = 2
        /// The tag of `playerRenamed` ops.
        case playerRenamed = 3
        /// The tag of `courseCreated` ops.
        case courseCreated = 4
        /// The tag of `courseRenamed` ops.
        case courseRenamed = 5
        /// The tag of `holeParSet` ops.
        case holeParSet = 6
        /// The tag of `courseDeleted` ops.
        case courseDeleted = 7
        /// The tag of `roundStarted` ops.
        case roundStarted = 8
        /// The tag of `roundFinished` ops.
        case roundFinished = 9
        /// The tag of `scoreRecorded` ops.
        case scoreRecorded = 10
        /// The tag of `deviceLinked` ops.
        case deviceLinked = 11
        /// The tag of `playerAliasAdded` ops.
        case playerAliasAdded = 12
        /// The tag of `roundReceipt` ops.
        case roundReceipt = 13
        /// The tag of `courseHolesSet` ops.
        case courseHolesSet = 14
        /// The tag of `deviceSucceeded` ops.
        case deviceSucceeded = 15
        /// The tag of `roundFinishedCovering` ops.
        case roundFinishedCovering = 16
        /// The tag of `memberRemoved` ops.
        case memberRemoved = 17
        /// The tag of `groupRekeyed` ops.
        case groupRekeyed = 18
        /// The tag of `roundImported` ops.
        case roundImported = 19
        /// The tag of `inviteIssued` ops.
        case inviteIssued = 20
        /// The tag of `memberAdmitted` ops.
        case memberAdmitted = 21
        /// The tag of `memberAdmittedWithProof` ops.
        case memberAdmittedWithProof = 22
        /// The tag of `inviteIssuedWithVerifier` ops.
        case inviteIssuedWithVerifier = 23
    }

    /// The kind of op, as its one-byte tag.
    public var kind: Kind {
        switch self {
        case .deviceRegistered: .deviceRegistered
        case .playerCreated: .playerCreated
        case .playerRenamed: .playerRenamed
        case .courseCreated: .courseCreated
        case .courseRenamed: .courseRenamed
        case .holeParSet: .holeParSet
        case .courseDeleted: .courseDeleted
        case .roundStarted: .roundStarted
        case .roundFinished: .roundFinished
        case .scoreRecorded: .scoreRecorded
        case .deviceLinked: .deviceLinked
        case .playerAliasAdded: .playerAliasAdded
        case .roundReceipt: .roundReceipt
        case .courseHolesSet: .courseHolesSet
        case .deviceSucceeded: .deviceSucceeded
        case .roundFinishedCovering: .roundFinishedCovering
        case .memberRemoved: .memberRemoved
        case .groupRekeyed: .groupRekeyed
        case .roundImported: .roundImported
        case .inviteIssued: .inviteIssued
        case .memberAdmitted: .memberAdmitted
        case .memberAdmittedWithProof: .memberAdmittedWithProof
        case .inviteIssuedWithVerifier: .inviteIssuedWithVerifier
        }
    }
}

/// The body of a round-start op.
public struct RoundStart: Hashable, Sendable {
    /// The course the round is played on.
    public let courseID: UUID
    /// The course's name when the round started.
    public let courseName: String
    /// The participant who organizes the round (``Round/organizerID``).
    public let organizer: ParticipantRef
    /// In order; guests get their ids from the round id and their place in this list.
    public let participants: [ParticipantEntry]
    /// The par of hole `n` at index `n - 1`, copied from the course.
    public let pars: [Int]

    /// The body of a round start; the bounds of ``OpPayload/Limits`` are checked when it is encoded.
    public init(courseID: UUID, courseName: String, organizer: ParticipantRef, participants: [ParticipantEntry], pars: [Int]) {
        self.courseID = courseID
        self.courseName = courseName
        self.organizer = organizer
        self.participants = participants
        self.pars = pars
    }
}

/// One participant as a round-start op lists it.
public enum ParticipantEntry: Hashable, Sendable {
    /// A registered player.
    case player(UUID)
    /// A guest known only in this round, by name; the guest's id derives from the round.
    case guest(name: String)
}

/// A reference to a participant inside ops: a registered player or a guest of a round.
public enum ParticipantRef: Hashable, Sendable {
    /// A registered player, by id.
    case player(UUID)
    /// A guest of a round, by the id the round gave it.
    case guest(UUID)

    /// The participant id as views and the command line show it.
    public var participantID: ParticipantID {
        switch self {
        case .player(let id): ParticipantID(player: id)
        case .guest(let id): ParticipantID(guest: id)
        }
    }

    /// The reference to the participant `participantID` names.
    public init(participantID: ParticipantID) {
        self = participantID.isGuest ? .guest(participantID.uuid) : .player(participantID.uuid)
    }
}

/// The body of a score op. The event's id, device and time come from the op itself.
public struct ScoreRecord: Hashable, Sendable {
    /// The round scored.
    public let roundID: UUID
    /// The hole, 1-based.
    public let hole: Int
    /// The participant who played the strokes.
    public let player: ParticipantRef
    /// The strokes, 1 to 10 (``ScoreEvent/strokeRange``) for the score to count.
    public let strokes: Int
    /// Sorted ascending in the encoding.
    public let supersedes: [UUID]
    /// The player who reported the score (the device's owner), if the device has one.
    public let reportedBy: ParticipantRef?

    /// A score body; `supersedes` is kept sorted, as the encoding writes it.
    public init(roundID: UUID, hole: Int, player: ParticipantRef, strokes: Int, supersedes: [UUID], reportedBy: ParticipantRef?) {
        self.roundID = roundID
        self.hole = hole
        self.player = player
        self.strokes = strokes
        self.supersedes = supersedes.sorted(by: UUID.precedes)
        self.reportedBy = reportedBy
    }
}
