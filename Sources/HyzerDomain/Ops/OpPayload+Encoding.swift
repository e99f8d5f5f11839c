import Foundation

extension OpPayload {
    /// Bounds on what one op may hold, checked when encoding and decoding.
    public enum Limits {
        /// The longest name, in UTF-8 bytes: players, courses, guests, devices, aliases.
        public static let nameBytesMax = 200
        /// The most holes a course or round has.
        public static let holesMax = 36
        /// The most participants a round has.
        public static let participantsMax = 64
        /// The most events one score supersedes.
        public static let supersedesMax = 64
        /// The most authors a covering finish lists.
        public static let coveredAuthorsMax = 1_024
        /// A sealed group secret: 32 bytes and `crypto_box_seal`'s 48.
        public static let sealedSecretBytes = 80
        /// Members a rekey seals the new secret to.
        public static let rekeyRecipientsMax = 1_024
        /// An invitation's proof key and its id (docs/formats.md, "Invitations").
        public static let inviteKeyBytes = 32
        /// An invitation's id, in bytes.
        public static let inviteIDBytes = 16
        /// The invitation key's Ed25519 signature in an admission (op kind 22).
        public static let joinProofBytes = 64
        /// Devices one invitation may admit.
        public static let inviteUsesMax = 1_000
    }

    /// The canonical bytes: the kind's tag, then its fields in declaration order.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(kind.rawValue)
        switch self {
        case .deviceRegistered(let name, let kind):
            writer.write(name)
            writer.write(UInt8(DeviceKind.allCases.firstIndex(of: kind)!))
        case .playerCreated(let displayName):
            writer.write(displayName)
        case .playerRenamed(let playerID, let displayName):
            writer.write(playerID)
            writer.write(displayName)
        case .courseCreated(let name, let pars):
            writer.write(name)
            writer.write(lengthPrefixed: pars.map { UInt8(clamping: $0) })
        case .courseRenamed(let courseID, let name):
            writer.write(courseID)
            writer.write(name)
        case .holeParSet(let courseID, let hole, let par):
            writer.write(courseID)
            writer.write(UInt8(clamping: hole))
            writer.write(UInt8(clamping: par))
        case .courseDeleted(let courseID):
            writer.write(courseID)
        case .roundStarted(let start):
            writer.write(start.courseID)
            writer.write(start.courseName)
            writer.write(start.organizer)
            writer.writeVarint(UInt64(start.participants.count))
            for entry in start.participants {
                switch entry {
                case .player(let id):
                    writer.write(UInt8(0))
                    writer.write(id)
                case .guest(let name):
                    writer.write(UInt8(1))
                    writer.write(name)
                }
            }
            writer.write(lengthPrefixed: start.pars.map { UInt8(clamping: $0) })
        case .roundFinished(let roundID, let force):
            writer.write(roundID)
            writer.write(force)
        case .scoreRecorded(let score):
            writer.write(score.roundID)
            writer.write(UInt8(clamping: score.hole))
            writer.write(score.player)
            writer.write(UInt8(clamping: score.strokes))
            writer.writeVarint(UInt64(score.supersedes.count))
            for id in score.supersedes { writer.write(id) }
            if let reportedBy = score.reportedBy {
                writer.write(true)
                writer.write(reportedBy)
            } else {
                writer.write(false)
            }
        case .deviceLinked(let device, let playerID):
            writer.write(device)
            writer.write(playerID)
        case .playerAliasAdded(let playerID, let alias):
            writer.write(playerID)
            writer.write(alias)
        case .roundReceipt(let roundID, let signature):
            writer.write(roundID)
            writer.write(raw: signature)
        case .courseHolesSet(let courseID, let holes):
            writer.write(courseID)
            writer.write(UInt8(clamping: holes))
        case .deviceSucceeded(let predecessor, let signature):
            writer.write(predecessor)
            writer.write(raw: signature)
        case .roundFinishedCovering(let roundID, let force, let covered):
            writer.write(roundID)
            writer.write(force)
            writer.writeVarint(UInt64(covered.count))
            for (author, sequence) in covered.sorted(by: { $0.key < $1.key }) {
                writer.write(author)
                writer.writeVarint(sequence)
            }
        case .memberRemoved(let device, let through):
            writer.write(device)
            writer.writeVarint(through)
        case .groupRekeyed(let epoch, let sealed):
            writer.writeVarint(UInt64(epoch))
            writer.writeVarint(UInt64(sealed.count))
            for (recipient, secret) in sealed.sorted(by: { $0.key < $1.key }) {
                writer.write(recipient)
                writer.write(raw: secret)
            }
        case .roundImported(let roundID, let startDate, let endDate):
            writer.write(roundID)
            writer.write(startDate)
            writer.write(endDate)
        case .inviteIssued(let key, let expiresAt, let uses):
            writer.write(raw: key)
            writer.writeVarint(expiresAt)
            writer.writeVarint(UInt64(clamping: uses))
        case .memberAdmitted(let invite, let device):
            writer.write(raw: invite)
            writer.write(device)
        case .memberAdmittedWithProof(let invite, let device, let proof):
            writer.write(raw: invite)
            writer.write(device)
            writer.write(raw: proof)
        case .inviteIssuedWithVerifier(let key, let verifier, let expiresAt, let uses):
            writer.write(raw: key)
            writer.write(raw: verifier)
            writer.writeVarint(expiresAt)
            writer.writeVarint(UInt64(clamping: uses))
        }
        return writer.bytes
    }

    /// Reads canonical bytes; throws for anything `encoded()` would not produce.
    public init(decoding bytes: some Collection<UInt8>) throws(ByteDecodingError) {
        var reader = ByteReader(bytes)
        let tag = try reader.readByte()
        guard let kind = Kind(rawValue: tag) else { throw .unknownTag(tag, field: "op kind") }
        switch kind {
        case .deviceRegistered:
            let name = try reader.readName()
            let kindIndex = Int(try reader.readByte())
            guard kindIndex < DeviceKind.allCases.count else { throw .unknownTag(UInt8(kindIndex), field: "device kind") }
            self = .deviceRegistered(name: name, kind: DeviceKind.allCases[kindIndex])
        case .playerCreated:
            self = .playerCreated(displayName: try reader.readName())
        case .playerRenamed:
            self = .playerRenamed(playerID: try reader.readUUID(), displayName: try reader.readName())
        case .courseCreated:
            self = .courseCreated(name: try reader.readName(), pars: try reader.readPars())
        case .courseRenamed:
            self = .courseRenamed(courseID: try reader.readUUID(), name: try reader.readName())
        case .holeParSet:
            self = .holeParSet(
                courseID: try reader.readUUID(), hole: Int(try reader.readByte()), par: Int(try reader.readByte()))
        case .courseDeleted:
            self = .courseDeleted(courseID: try reader.readUUID())
        case .roundStarted:
            let courseID = try reader.readUUID()
            let courseName = try reader.readName()
            let organizer = try reader.readParticipantRef()
            let count = try reader.readCount(maximum: Limits.participantsMax)
            var participants: [ParticipantEntry] = []
            for _ in 0..<count {
                switch try reader.readByte() {
                case 0: participants.append(.player(try reader.readUUID()))
                case 1: participants.append(.guest(name: try reader.readName()))
                case let other: throw .unknownTag(other, field: "participant")
                }
            }
            let pars = try reader.readPars()
            self = .roundStarted(
                RoundStart(
                    courseID: courseID, courseName: courseName, organizer: organizer,
                    participants: participants, pars: pars))
        case .roundFinished:
            self = .roundFinished(roundID: try reader.readUUID(), force: try reader.readBool())
        case .scoreRecorded:
            let roundID = try reader.readUUID()
            let hole = Int(try reader.readByte())
            let player = try reader.readParticipantRef()
            let strokes = Int(try reader.readByte())
            let count = try reader.readCount(maximum: Limits.supersedesMax)
            var supersedes: [UUID] = []
            for _ in 0..<count { supersedes.append(try reader.readUUID()) }
            guard supersedes == supersedes.sorted(by: UUID.precedes) else {
                throw .outOfRange(field: "supersedes order")
            }
            let reportedBy: ParticipantRef? = try reader.readBool() ? try reader.readParticipantRef() : nil
            self = .scoreRecorded(
                ScoreRecord(
                    roundID: roundID, hole: hole, player: player, strokes: strokes,
                    supersedes: supersedes, reportedBy: reportedBy))
        case .deviceLinked:
            self = .deviceLinked(device: try reader.readAuthorID(), playerID: try reader.readUUID())
        case .playerAliasAdded:
            self = .playerAliasAdded(playerID: try reader.readUUID(), alias: try reader.readName())
        case .roundReceipt:
            self = .roundReceipt(roundID: try reader.readUUID(), signature: try reader.readRaw(32))
        case .courseHolesSet:
            self = .courseHolesSet(courseID: try reader.readUUID(), holes: Int(try reader.readByte()))
        case .deviceSucceeded:
            self = .deviceSucceeded(predecessor: try reader.readAuthorID(), signature: try reader.readRaw(64))
        case .roundFinishedCovering:
            let roundID = try reader.readUUID()
            let force = try reader.readBool()
            let count = try reader.readCount(maximum: Limits.coveredAuthorsMax)
            var covered: [AuthorID: UInt64] = [:]
            var previous: AuthorID?
            for _ in 0..<count {
                let author = try reader.readAuthorID()
                guard previous.map({ $0 < author }) ?? true else { throw .outOfRange(field: "covered authors order") }
                previous = author
                let sequence = try reader.readVarint()
                guard sequence >= 1 else { throw .outOfRange(field: "covered sequence") }
                covered[author] = sequence
            }
            self = .roundFinishedCovering(roundID: roundID, force: force, covered: covered)
        case .memberRemoved:
            let device = try reader.readAuthorID()
            let through = try reader.readVarint()
            guard through <= UInt64(Int64.max) else { throw .outOfRange(field: "removed through") }
            self = .memberRemoved(device: device, through: through)
        case .groupRekeyed:
            let epoch = try reader.readVarint()
            guard epoch >= 1, epoch <= UInt64(UInt32.max) else { throw .outOfRange(field: "epoch") }
            let count = try reader.readCount(maximum: Limits.rekeyRecipientsMax)
            guard count >= 1 else { throw .outOfRange(field: "rekey recipients") }
            var sealed: [AuthorID: [UInt8]] = [:]
            var previous: AuthorID?
            for _ in 0..<count {
                let recipient = try reader.readAuthorID()
                guard previous.map({ $0 < recipient }) ?? true else { throw .outOfRange(field: "rekey recipients order") }
                previous = recipient
                sealed[recipient] = try reader.readRaw(Limits.sealedSecretBytes)
            }
            self = .groupRekeyed(epoch: UInt32(epoch), sealed: sealed)
        case .roundImported:
            self = .roundImported(roundID: try reader.readUUID(), startDate: try reader.readName(), endDate: try reader.readName())
        case .inviteIssued, .inviteIssuedWithVerifier:
            let key = try reader.readRaw(Limits.inviteKeyBytes)
            let verifier = kind == .inviteIssuedWithVerifier ? try reader.readRaw(Limits.inviteKeyBytes) : nil
            let expiresAt = try reader.readVarint()
            guard expiresAt <= UInt64(Int64.max) else { throw .outOfRange(field: "invitation expiry") }
            let uses = try reader.readVarint()
            guard (1...UInt64(Limits.inviteUsesMax)).contains(uses) else { throw .outOfRange(field: "invitation uses") }
            if let verifier {
                self = .inviteIssuedWithVerifier(key: key, verifier: verifier, expiresAt: expiresAt, uses: Int(uses))
            } else {
                self = .inviteIssued(key: key, expiresAt: expiresAt, uses: Int(uses))
            }
        case .memberAdmitted:
            self = .memberAdmitted(invite: try reader.readRaw(Limits.inviteIDBytes), device: try reader.readAuthorID())
        case .memberAdmittedWithProof:
            self = .memberAdmittedWithProof(
                invite: try reader.readRaw(Limits.inviteIDBytes), device: try reader.readAuthorID(),
                proof: try reader.readRaw(Limits.joinProofBytes))
        }
        try reader.expectEnd()
    }
}

extension ByteWriter {
    mutating func write(_ ref: ParticipantRef) {
        switch ref {
        case .player(let id):
            write(UInt8(0))
            write(id)
        case .guest(let id):
            write(UInt8(1))
            write(id)
        }
    }
}

extension ByteReader {
    mutating func readParticipantRef() throws(ByteDecodingError) -> ParticipantRef {
        switch try readByte() {
        case 0: return .player(try readUUID())
        case 1: return .guest(try readUUID())
        case let other: throw .unknownTag(other, field: "participant")
        }
    }

    mutating func readName() throws(ByteDecodingError) -> String {
        try readString(maximumBytes: OpPayload.Limits.nameBytesMax)
    }

    mutating func readPars() throws(ByteDecodingError) -> [Int] {
        try readLengthPrefixed(maximum: OpPayload.Limits.holesMax).map(Int.init)
    }
}
