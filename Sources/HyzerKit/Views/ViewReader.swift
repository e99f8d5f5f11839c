import Foundation
import GRDB
import HyzerDomain

/// Reads domain values out of the view tables of one database snapshot.
struct ViewReader {
    let db: Database

    func register(_ entity: UUID, _ field: String) throws -> Data? {
        try register(Data(entity.bytes), field)
    }

    func register(_ entity: Data, _ field: String) throws -> Data? {
        try Data.fetchOne(
            db.cachedStatement(sql: "SELECT value FROM registers WHERE entity = ? AND field = ?"), arguments: [entity, field])
    }

    func text(_ entity: UUID, _ field: String) throws -> String? {
        try register(entity, field).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Players

    func players() throws -> [Player] {
        enum Column: Int, CaseIterable { case id, creator, createdMilliseconds, createdCounter }
        return try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Column.selection) FROM players")).map { row in
            let id: UUID = try row.value(Column.id)
            return Player(
                id: id, displayName: try text(id, "name") ?? "",
                createdAt: HLCTimestamp(
                    physicalMilliseconds: UInt64(bitPattern: try row.value(Column.createdMilliseconds)),
                    counter: UInt32(truncatingIfNeeded: try row.value(Column.createdCounter) as Int64)),
                createdBy: try row.value(Column.creator))
        }
        .sorted { NameOrder.precedes($0.displayName, $0.id, $1.displayName, $1.id) }
    }

    func playerName(_ id: UUID) throws -> String? { try text(id, "name") }

    /// Every player's aliases (`player alias`), sorted by their UTF-8 bytes. Read from the log
    /// itself, so aliases a replica stored before it understood them count too.
    func aliases() throws -> [UUID: [String]] {
        var aliases: [UUID: Set<String>] = [:]
        for op in try ops(of: .playerAliasAdded) {
            guard case .playerAliasAdded(let player, let alias) = op.payload else { continue }
            aliases[player, default: []].insert(alias)
        }
        return aliases.mapValues { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    }

    /// Every round receipt (`roundReceipt` ops), by round: which device signed which round
    /// signature. Read from the log itself.
    func receipts() throws -> [UUID: [RoundReceipt]] {
        var receipts: [UUID: [RoundReceipt]] = [:]
        for op in try ops(of: .roundReceipt) {
            guard case .roundReceipt(let round, let signature) = op.payload else { continue }
            receipts[round, default: []].append(RoundReceipt(device: op.author, signature: signature))
        }
        return receipts
    }

    /// The dates of rounds imported from UDisc (`roundImported` ops), by round and author: the
    /// first such op of each author.
    func importedDates() throws -> [UUID: [AuthorID: ImportedDates]] {
        var dates: [UUID: [AuthorID: ImportedDates]] = [:]
        for op in try ops(of: .roundImported) {
            guard case .roundImported(let round, let start, let end) = op.payload, dates[round]?[op.author] == nil else { continue }
            dates[round, default: [:]][op.author] = ImportedDates(start: start, end: end)
        }
        return dates
    }

    /// The decodable ops of one kind that count (`Schema.counts`: not above a fork point, not
    /// above a removal).
    func ops(of kind: OpPayload.Kind) throws -> [StoredOp] {
        try StoredOp.fetchAll(db, where: "\(Schema.opKind(in: [kind])) AND \(Schema.counts)")
    }

    func ownership() throws -> Ownership {
        enum Creator: Int, CaseIterable { case id, creator }
        var creators: [ParticipantID: AuthorID] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Creator.selection) FROM players")) {
            creators[ParticipantID(player: try row.value(Creator.id) as UUID)] = try row.value(Creator.creator)
        }
        enum Link: Int, CaseIterable { case player, device, linkedBy }
        let links = try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Link.selection) FROM deviceLinks")).map { row in
            DeviceLink(
                player: ParticipantID(player: try row.value(Link.player) as UUID), device: try row.value(Link.device),
                linkedBy: try row.value(Link.linkedBy))
        }
        enum Succession: Int, CaseIterable { case predecessor, successor }
        let successions = try Row.fetchAll(db.cachedStatement(sql: "SELECT \(Succession.selection) FROM deviceSuccessions")).map { row in
            DeviceSuccession(predecessor: try row.value(Succession.predecessor), successor: try row.value(Succession.successor))
        }
        return Ownership(creators: creators, links: links, successions: successions)
    }

    // MARK: Courses

    func courses() throws -> [Course] {
        try UUID.fetchAll(db.cachedStatement(sql: "SELECT id FROM courses")).compactMap { try course($0) }
            .sorted { NameOrder.precedes($0.name, $0.id, $1.name, $1.id) }
    }

    func course(_ id: UUID) throws -> Course? {
        enum Column: Int, CaseIterable { case holeCount, seeded, createdMilliseconds, createdCounter }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Column.selection) FROM courses WHERE id = ?"), arguments: [Data(id.bytes)])
        else { return nil }
        // `course set-holes` writes a register over the count the course was created with; a
        // count outside 1...36 (only a forged op could hold one) is ignored.
        let created: Int = try row.value(Column.holeCount)
        let holeCount =
            try register(id, "holeCount").flatMap(\.first).map(Int.init)
            .flatMap { (1...OpPayload.Limits.holesMax).contains($0) ? $0 : nil } ?? created
        var pars: [Int] = []
        for hole in 1...max(holeCount, 1) where hole <= holeCount {
            pars.append(Int(try register(id, Register.par(hole))?.first ?? 3))
        }
        return Course(
            id: id, name: try text(id, "name") ?? "", pars: pars, isSeeded: try row.value(Column.seeded),
            deleted: try register(id, "deleted") != nil,
            createdAt: HLCTimestamp(
                physicalMilliseconds: UInt64(bitPattern: try row.value(Column.createdMilliseconds)),
                counter: UInt32(truncatingIfNeeded: try row.value(Column.createdCounter) as Int64)))
    }

    // MARK: Rounds

    func roundIDs() throws -> [UUID] {
        try Data.fetchAll(db.cachedStatement(sql: "SELECT id FROM rounds ORDER BY stamp DESC")).compactMap { UUID(bytes: Array($0)) }
    }

    func round(_ id: UUID) throws -> Round? {
        guard let op = try StoredOp.fetch(db, from: "rounds", where: "v.id = ?", arguments: [Data(id.bytes)]).first,
            case .roundStarted(let start) = op.payload
        else { return nil }
        var participants: [Participant] = []
        for (index, entry) in start.participants.enumerated() {
            switch entry {
            case .player(let playerID):
                participants.append(Participant(id: ParticipantID(player: playerID), name: try playerName(playerID) ?? "unknown player"))
            case .guest(let name):
                participants.append(Participant(id: ParticipantID(guest: Self.guestID(round: id, index: index)), name: name))
            }
        }
        return Round(
            id: id, courseID: start.courseID, courseName: start.courseName, organizerID: start.organizer.participantID,
            participants: participants, pars: start.pars, startedAt: op.clock, startedBy: op.author)
    }

    /// A guest's id: a UUIDv5 of its place in the participant list, in the round's namespace.
    static func guestID(round: UUID, index: Int) -> UUID {
        UUID(v5: "guest/\(index)", namespace: round)
    }

    func events(round: UUID) throws -> [ScoreEvent] {
        try StoredOp.scores(db, round: round).compactMap { op in
            guard case .scoreRecorded(let score) = op.payload else { return nil }
            return ScoreEvent(
                id: op.entityID, roundID: score.roundID, holeNumber: score.hole, playerID: score.player.participantID,
                strokeCount: score.strokes, supersedes: score.supersedes, reportedByPlayerID: score.reportedBy?.participantID,
                deviceID: op.author, createdAt: op.clock, sequence: op.sequence)
        }
    }

    func finishes(round: UUID) throws -> [RoundFinish] {
        try StoredOp.fetch(db, from: "roundFinishes", where: "v.round = ?", arguments: [Data(round.bytes)]).compactMap { op in
            switch op.payload {
            case .roundFinished(let roundID, let force):
                return RoundFinish(roundID: roundID, deviceID: op.author, createdAt: op.clock, force: force)
            case .roundFinishedCovering(let roundID, let force, let covered):
                return RoundFinish(roundID: roundID, deviceID: op.author, createdAt: op.clock, force: force, covered: covered)
            default:
                return nil
            }
        }
    }

    /// `round` evaluated by `merge` (the replica's `ReplicaPolicies.merge`).
    func evaluation(_ round: Round, ownership: Ownership? = nil, merge: MergeRule) throws -> RoundEvaluation {
        RoundEvaluation(
            round: round, events: try events(round: round.id), finishes: try finishes(round: round.id),
            ownership: try ownership ?? self.ownership(), merge: merge)
    }

    // MARK: Devices

    /// The kind a device's record gives, if the record is held.
    func deviceKind(_ device: AuthorID) throws -> DeviceKind? {
        try register(Data(device.bytes), "device.kind").flatMap { DeviceKind(rawValue: String(decoding: $0, as: UTF8.self)) }
    }

    func devices() throws -> [Device] {
        try Data.fetchAll(db.cachedStatement(sql: "SELECT key FROM authors ORDER BY key")).compactMap { key in
            guard let author = AuthorID(bytes: Array(key)) else { return nil }
            let name = try register(key, "device.name").map { String(decoding: $0, as: UTF8.self) }
            let kind = try deviceKind(author)
            guard let name, let kind else { return nil }
            return Device(id: author, name: name, kind: kind)
        }
    }
}

/// The locale-free order of named things in listings: name bytes, then id.
enum NameOrder {
    static func precedes(_ name: String, _ id: UUID, _ otherName: String, _ otherID: UUID) -> Bool {
        if name != otherName { return name.utf8.lexicographicallyPrecedes(otherName.utf8) }
        return UUID.precedes(id, otherID)
    }
}

/// A UDisc round's StartDate and EndDate as its export wrote them (`roundImported`).
struct ImportedDates: Hashable {
    let start: String
    let end: String
}
