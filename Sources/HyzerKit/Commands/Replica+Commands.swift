import Foundation
import GRDB
import HyzerDomain

/// The commands that change a replica. Each validates against the replica's current state and
/// appends its op in one transaction: a refused command changes nothing.
extension Replica {
    /// Creates a registered player named `name`, owned by this device, and returns it.
    /// Throws `InputError` for an empty, padded, over-long (more than 200 UTF-8 bytes) or
    /// control-character name, and `ReplicaError` when the store cannot be written.
    @discardableResult
    public func addPlayer(name: String) throws -> Player {
        try Validation.name(name, of: "player")
        return try write { db in
            let op = try append(.playerCreated(displayName: name), in: db)
            return try ViewReader(db: db).players().first { $0.id == op.entityID }!
        }
    }

    /// Renames the player `player` names (its id, its exact name or a unique id prefix) to `name`.
    /// Throws `InputError` for an unusable name, `ReplicaError.unknown` or `.ambiguous` when
    /// `player` names no player or several.
    public func renamePlayer(_ player: String, to name: String) throws {
        try Validation.name(name, of: "player")
        try write { db in
            let id = try Self.resolvePlayer(player, ViewReader(db: db))
            try append(.playerRenamed(playerID: id, displayName: name), in: db)
        }
    }

    /// Creates a course named `name` with the par of hole `n` at `pars[n - 1]` and returns it.
    /// Throws `InputError` for an unusable name, 0 or more than 36 holes, or a par outside 2...7.
    @discardableResult
    public func addCourse(name: String, pars: [Int]) throws -> Course {
        try Validation.name(name, of: "course")
        try Validation.pars(pars)
        return try write { db in
            let op = try append(.courseCreated(name: name, pars: pars), in: db)
            return try ViewReader(db: db).course(op.entityID)!
        }
    }

    /// Sets the par of hole `hole` (1-based) of the course `course` names; rounds already started keep
    /// their pars. Throws `InputError.parOutOfRange` for a par outside 2...7,
    /// `ReplicaError.holeOutOfRange`, `.unknown`, `.ambiguous` or `.courseDeleted`.
    public func setPar(course: String, hole: Int, par: Int) throws {
        try Validation.par(par)
        try write { db in
            let course = try Self.liveCourse(course, ViewReader(db: db))
            try Validation.hole(hole, holeCount: course.holeCount)
            try append(.holeParSet(courseID: course.id, hole: hole, par: par), in: db)
        }
    }

    /// Gives a course `holes` holes: the pars of the holes it keeps stay, new holes are par 3
    /// (or the par they had before the course was shortened). Past rounds keep their own pars.
    public func setHoleCount(course: String, holes: Int) throws {
        guard (1...OpPayload.Limits.holesMax).contains(holes) else {
            throw InputError.holeCountOutOfRange(holes: holes, limit: OpPayload.Limits.holesMax)
        }
        try write { db in
            let course = try Self.liveCourse(course, ViewReader(db: db))
            guard course.holeCount != holes else { return }
            try append(.courseHolesSet(courseID: course.id, holes: holes), in: db)
        }
    }

    /// Renames the course `course` names to `name`. Throws `InputError` for an unusable name and
    /// `ReplicaError.unknown`, `.ambiguous` or `.courseDeleted`.
    public func renameCourse(_ course: String, to name: String) throws {
        try Validation.name(name, of: "course")
        try write { db in
            let course = try Self.liveCourse(course, ViewReader(db: db))
            try append(.courseRenamed(courseID: course.id, name: name), in: db)
        }
    }

    /// Deletes the course `course` names: no round starts on it any more, and rounds played on it
    /// stay. Throws `ReplicaError.unknown`, `.ambiguous` or `.courseDeleted`.
    public func deleteCourse(_ course: String) throws {
        try write { db in
            let course = try Self.liveCourse(course, ViewReader(db: db))
            try append(.courseDeleted(courseID: course.id), in: db)
        }
    }

    /// Starts a round on `course` with registered `players` and `guests`, copying the
    /// course's pars. The organizer defaults to this device's owner.
    @discardableResult
    public func startRound(course: String, players: [String], guests: [String] = [], organizer: String? = nil) throws -> Round {
        for guest in guests { try Validation.name(guest, of: "guest") }
        return try write { db in
            let reader = ViewReader(db: db)
            let course = try Self.liveCourse(course, reader)
            var playerIDs: [UUID] = []
            for text in players {
                let id = try Self.resolvePlayer(text, reader)
                guard !playerIDs.contains(id) else {
                    throw RoundError.playerListedTwice(text)
                }
                playerIDs.append(id)
            }
            try Self.requireDistinctGuests(guests, players: try playerIDs.map { ($0, try reader.playerName($0) ?? "") })
            let count = playerIDs.count + guests.count
            guard count >= 1 else {
                throw RoundError.noParticipants
            }
            guard count <= OpPayload.Limits.participantsMax else {
                throw RoundError.tooManyParticipants(limit: OpPayload.Limits.participantsMax)
            }
            let organizerID: UUID
            if let organizer {
                organizerID = try Self.resolvePlayer(organizer, reader)
            } else if let owner = try Meta.text(.owner, in: db).flatMap(UUID.init(uuidString:)) {
                organizerID = owner
            } else {
                throw RoundError.noOrganizer
            }
            let start = RoundStart(
                courseID: course.id, courseName: course.name, organizer: .player(organizerID),
                participants: playerIDs.map { .player($0) } + guests.map { .guest(name: $0) }, pars: course.pars)
            let op = try append(.roundStarted(start), in: db)
            return try reader.round(op.entityID)!
        }
    }

    /// Finishes a round. Only a device owning the organizer may; without `force` every
    /// participant needs a score on every hole and no hole may be disputed.
    @discardableResult
    public func finishRound(_ round: String, force: Bool) throws -> Round {
        try write { db in
            let reader = ViewReader(db: db)
            let round = try Self.round(round, reader)
            let ownership = try reader.ownership()
            let evaluation = try reader.evaluation(round, ownership: ownership, merge: policies.merge)
            try requireOrganizerDevice(round, ownership, reader)
            guard evaluation.status != .completed else { throw ReplicaError.roundCompleted(round: round.id.lowercased) }
            if !force, evaluation.status != .awaitingFinalization {
                let (missing, disputed) = Self.gaps(round, evaluation)
                throw ReplicaError.roundNotReady(round: round.id.lowercased, missingScores: missing, disputedHoles: disputed)
            }
            // What this device holds of every author that scored in the round: the cutoff that no
            // backdated stamp can get past (docs/domain.md).
            var covered: [AuthorID: UInt64] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT DISTINCT a.key AS author, CASE WHEN a.frozenAt = 0 THEN a.headSequence ELSE a.frozenAt - 1 END AS held
                        FROM ops o JOIN authors a ON a.id = o.author WHERE \(Schema.scoreOfRound) AND \(Schema.counts)
                        """), arguments: Schema.roundArguments(round.id))
            {
                covered[try row.decode(forColumn: "author")] = try row.decode(forColumn: "held")
            }
            try append(.roundFinishedCovering(roundID: round.id, force: force, covered: covered), in: db)
            return round
        }
    }

    /// Records `strokes` for `player` on `hole`. When this device already has a current score
    /// there, the new event corrects it (supersedes this device's own leaves), as re-entering a
    /// score on the same phone does: a device never disputes itself.
    @discardableResult
    public func recordScore(round: String, player: String, hole: Int, strokes: Int) throws -> ScoreEvent {
        try Validation.strokes(strokes)
        return try write { db in
            let reader = ViewReader(db: db)
            let round = try Self.round(round, reader)
            let participant = try resolveParticipant(player, in: round)
            try Validation.hole(hole, holeCount: round.holeCount)
            let evaluation = try reader.evaluation(round, merge: policies.merge)
            guard evaluation.status != .completed else { throw ReplicaError.roundCompleted(round: round.id.lowercased) }
            return try appendScoreCorrectingOwn(round: round, evaluation, player: participant, hole: hole, strokes: strokes, db)
        }
    }

    /// Corrects an event this device recorded: a new event that supersedes it.
    @discardableResult
    public func correct(event: String, strokes: Int) throws -> ScoreEvent {
        try Validation.strokes(strokes)
        return try write { db in
            let reader = ViewReader(db: db)
            let (eventID, roundID) = try Self.resolveScoreEvent(event, db)
            guard let roundID, let round = try reader.round(roundID),
                let original = try reader.events(round: roundID).first(where: { $0.id == eventID })
            else { throw ReplicaError.unknown(kind: "event", text: event) }
            guard original.deviceID == author else {
                throw ReplicaError.notYourEvent(event: eventID.lowercased, device: original.deviceID.short)
            }
            let evaluation = try reader.evaluation(round, merge: policies.merge)
            guard evaluation.status != .completed else { throw ReplicaError.roundCompleted(round: round.id.lowercased) }
            guard let participant = round.participants.first(where: { $0.id == original.playerID }),
                (1...round.holeCount).contains(original.holeNumber)
            else { throw CorrectionError.notAValidScore(event: eventID.lowercased) }
            let leaves = Self.leaves(evaluation.score(player: original.playerID, hole: original.holeNumber))
            guard leaves.contains(where: { $0.id == eventID }) else {
                throw CorrectionError.alreadyCorrected(event: eventID.lowercased)
            }
            return try appendScore(
                round: round, player: participant, hole: original.holeNumber, strokes: strokes, supersedes: [eventID], db)
        }
    }

    /// The organizer's resolution: one event that supersedes every current leaf of the hole.
    @discardableResult
    public func resolve(round: String, player: String, hole: Int, strokes: Int) throws -> ScoreEvent {
        try Validation.strokes(strokes)
        return try write { db in
            let reader = ViewReader(db: db)
            let round = try Self.round(round, reader)
            let participant = try resolveParticipant(player, in: round)
            try Validation.hole(hole, holeCount: round.holeCount)
            let ownership = try reader.ownership()
            try requireOrganizerDevice(round, ownership, reader)
            let evaluation = try reader.evaluation(round, ownership: ownership, merge: policies.merge)
            let leaves = Self.leaves(evaluation.score(player: participant.id, hole: hole))
            if evaluation.status == .completed, leaves.isEmpty { throw ReplicaError.roundCompleted(round: round.id.lowercased) }
            return try appendScore(round: round, player: participant, hole: hole, strokes: strokes, supersedes: leaves.map(\.id), db)
        }
    }

    /// The organizer counts a late score (docs/rules.md, "Late scores"): one resolution of the
    /// late event's player and hole with its strokes, superseding the hole's current leaves and
    /// naming the late event, which is then no longer listed as late. `event` is the late
    /// event's id or an unambiguous prefix of it.
    @discardableResult
    public func countLateScore(round: String, event: String) throws -> ScoreEvent {
        try write { db in
            let reader = ViewReader(db: db)
            let round = try Self.round(round, reader)
            let ownership = try reader.ownership()
            try requireOrganizerDevice(round, ownership, reader)
            let evaluation = try reader.evaluation(round, ownership: ownership, merge: policies.merge)
            let found = try Self.lateScore(event, in: evaluation)
            guard let participant = round.participants.first(where: { $0.id == found.playerID })
            else { throw ReplicaError.unknown(kind: "late score", text: event) }
            let leaves = Self.leaves(evaluation.score(player: participant.id, hole: found.holeNumber))
            return try appendScore(
                round: round, player: participant, hole: found.holeNumber, strokes: found.strokeCount,
                supersedes: leaves.map(\.id) + [found.id], db)
        }
    }

    /// Makes `device` an owner of `owner`; this device must own that player.
    public func linkDevice(_ device: String, owner: String) throws {
        try write { db in
            let reader = ViewReader(db: db)
            let device = try Self.resolveDevice(device, reader)
            let player = try Self.resolvePlayer(owner, reader)
            let ownership = try reader.ownership()
            guard ownership.device(author, owns: ParticipantID(player: player)) else {
                throw ReplicaError.notOwner(player: try reader.playerName(player) ?? player.lowercased)
            }
            guard !ownership.device(device, owns: ParticipantID(player: player)) else { return }
            try append(.deviceLinked(device: device, playerID: player), in: db)
        }
    }

    // MARK: Helpers

    /// Refuses a guest whose name folds like another guest's or like a registered player's of the
    /// same round: scoring that name later would match several participants.
    private static func requireDistinctGuests(_ guests: [String], players: [(id: UUID, name: String)]) throws {
        var taken: [String: String] = [:]
        for player in players { taken[NameFolding.folded(player.name)] = player.name }
        var guestNames: Set<String> = []
        for guest in guests {
            let folded = NameFolding.folded(guest)
            if guestNames.contains(folded) {
                throw RoundError.guestNamedTwice(guest: guest)
            }
            if let player = taken[folded] {
                throw RoundError.guestNamesPlayer(guest: guest, player: player)
            }
            guestNames.insert(folded)
        }
    }

    /// Appends a score that supersedes this device's own current leaves of the hole, if any.
    func appendScoreCorrectingOwn(
        round: Round, _ evaluation: RoundEvaluation, player: Participant, hole: Int, strokes: Int, _ db: Database
    ) throws -> ScoreEvent {
        let own = Self.leaves(evaluation.score(player: player.id, hole: hole)).filter { $0.deviceID == author }
        return try appendScore(round: round, player: player, hole: hole, strokes: strokes, supersedes: own.map(\.id), db)
    }

    private func appendScore(
        round: Round, player: Participant, hole: Int, strokes: Int, supersedes: [UUID], _ db: Database
    ) throws -> ScoreEvent {
        let reporter = try Meta.text(.owner, in: db).flatMap(UUID.init(uuidString:)).map { ParticipantRef.player($0) }
        let record = ScoreRecord(
            roundID: round.id, hole: hole, player: ParticipantRef(participantID: player.id), strokes: strokes,
            supersedes: supersedes, reportedBy: reporter)
        let op = try append(.scoreRecorded(record), in: db)
        return ScoreEvent(
            id: op.entityID, roundID: round.id, holeNumber: hole, playerID: player.id, strokeCount: strokes,
            supersedes: record.supersedes, reportedByPlayerID: reporter?.participantID, deviceID: author, createdAt: op.clock!)
    }

    private func requireOrganizerDevice(_ round: Round, _ ownership: Ownership, _ reader: ViewReader) throws {
        guard ownership.device(author, owns: round.organizerID) else {
            let name =
                round.participants.first { $0.id == round.organizerID }?.name
                ?? round.organizerID.player.flatMap { try? reader.playerName($0.uuid) } ?? round.organizerID.description
            throw ReplicaError.notOrganizerDevice(round: round.id.lowercased, organizer: name)
        }
    }

    static func round(_ text: String, _ reader: ViewReader) throws -> Round {
        let id = try resolveRound(text, reader)
        guard let round = try reader.round(id) else { throw ReplicaError.unknown(kind: "round", text: text) }
        return round
    }

    private static func liveCourse(_ text: String, _ reader: ViewReader) throws -> Course {
        let id = try resolveCourse(text, reader)
        guard let course = try reader.course(id) else { throw ReplicaError.unknown(kind: "course", text: text) }
        guard !course.deleted else { throw ReplicaError.courseDeleted(name: course.name) }
        return course
    }

    static func leaves(_ score: HoleScore) -> [ScoreEvent] {
        switch score {
        case .unscored: []
        case .scored(_, let leaves): leaves
        case .disputed(let leaves, _): leaves
        }
    }

    /// Missing scores and disputed holes of a round.
    static func gaps(_ round: Round, _ evaluation: RoundEvaluation) -> (missing: Int, disputed: Int) {
        var missing = 0
        var disputed = 0
        for participant in round.participants {
            for hole in 1...max(1, round.holeCount) where hole <= round.holeCount {
                switch evaluation.score(player: participant.id, hole: hole) {
                case .unscored: missing += 1
                case .disputed: disputed += 1
                case .scored: break
                }
            }
        }
        return (missing, disputed)
    }
}
