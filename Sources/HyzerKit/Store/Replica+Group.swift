import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// The group a replica syncs with: only holders of its secret can read its bundles or
/// complete a handshake with its members. Each rekey starts a new epoch with a new secret
/// (docs/security.md, "Re-keying"); a replica keeps every epoch's secret it holds, to read
/// files sealed under an older one.
public struct GroupMembership: Hashable, Sendable {
    /// The length of a group secret.
    public static let secretBytes = 32

    /// The group's id.
    public let id: UUID
    /// The secret of each epoch this replica holds; never printed except inside an invite token.
    public let secrets: [UInt32: [UInt8]]
    /// The newest epoch this replica holds: what it seals files and handshakes with.
    public let epoch: UInt32
    /// The devices the newest epoch's secret was sealed to, and their successors (`device
    /// continue`: a successor keeps what opens its predecessor's seals); empty for epoch 0.
    public let recipients: Set<AuthorID>
    /// Devices the organizer removed, and their successors.
    public let removed: Set<AuthorID>
    /// The successions from the keys this store continued from to its own key, nearest first
    /// (at most `SuccessionProof.chainMax`): what its handshakes show, so that a member that
    /// has not received its succession op admits it like its predecessor. Empty for a store
    /// that never continued.
    public let lineage: [SuccessionProof]
    /// The organizer's removals this store holds with their own signature, by the device each
    /// removes: what a member shows a removed device that dials it (`RemovalProof`).
    public let removalProofs: [AuthorID: RemovalProof]

    /// The group of an invite token: one epoch's secret.
    public init(id: UUID, secret: [UInt8], epoch: UInt32 = 0) {
        self.init(id: id, secrets: [epoch: secret], recipients: [], removed: [], lineage: [])
    }

    init(
        id: UUID, secrets: [UInt32: [UInt8]], recipients: Set<AuthorID>, removed: Set<AuthorID>, lineage: [SuccessionProof],
        removalProofs: [AuthorID: RemovalProof] = [:]
    ) {
        precondition(!secrets.isEmpty && secrets.values.allSatisfy { $0.count == Self.secretBytes }, "a group secret has 32 bytes")
        self.id = id
        self.secrets = secrets
        self.epoch = secrets.keys.max()!
        self.recipients = recipients
        self.removed = removed
        self.lineage = lineage
        self.removalProofs = removalProofs
    }

    /// The newest epoch's secret.
    public var secret: [UInt8] { secrets[epoch]! }

    /// The newest epoch this replica holds below `epoch`, if any: what a dialer tries next when
    /// a peer closes on its hello (the peer may not have received the newer rekey yet).
    public func epochBefore(_ epoch: UInt32) -> UInt32? {
        secrets.keys.filter { $0 < epoch }.max()
    }

    /// Whether `peer`, proving it holds the secret of `epoch`, may sync: a removed device never;
    /// a device with an older secret only when the newest was sealed to it (it will learn the
    /// newest from the sync itself). Someone who kept an old secret and made a fresh identity
    /// is not among the recipients.
    ///
    /// `lineage`: the successions the peer showed, nearest first, each checked: a successor of a
    /// recipient this replica has not heard of yet is admitted like its predecessor, and a
    /// successor of a removed device is refused with it.
    public func admits(_ peer: AuthorID, epoch: UInt32, lineage: [SuccessionProof] = []) -> Bool {
        let line = Self.line(of: peer, lineage)
        guard removed.isDisjoint(with: line) else { return false }
        return epoch == self.epoch || (epoch < self.epoch && !recipients.isDisjoint(with: line))
    }

    /// Whether the organizer removed `peer` or a device it shows it continued.
    public func isRemoved(_ peer: AuthorID, lineage: [SuccessionProof] = []) -> Bool {
        !removed.isDisjoint(with: Self.line(of: peer, lineage))
    }

    /// The organizer's signed removal of `peer` or of a device it shows it continued, when this
    /// store holds one: what a member shows the removed device as it refuses it.
    public func removalProof(for peer: AuthorID, lineage: [SuccessionProof] = []) -> RemovalProof? {
        Self.line(of: peer, lineage).lazy.compactMap { removalProofs[$0] }.first
    }

    /// `peer` and the predecessors `lineage` proves, up to the first proof that does not verify.
    private static func line(of peer: AuthorID, _ lineage: [SuccessionProof]) -> [AuthorID] {
        var line = [peer]
        for proof in lineage.prefix(SuccessionProof.chainMax) {
            guard proof.proves(successor: line[line.count - 1]) else { break }
            line.append(proof.predecessor)
        }
        return line
    }

    /// The id of the group `organizer` creates: the first 16 bytes of
    /// BLAKE2b-256("hyzer-group/v1" ‖ organizer key). Every member can tell the organizer from
    /// the id alone, and nobody else can find a key that makes the same id.
    public static func groupID(organizer: AuthorID) -> UUID {
        UUID(hashPrefix: Blake2b.hash256(Array("hyzer-group/v1".utf8) + organizer.bytes))
    }

    /// A group secret sealed to `device` (a rekey's entry, an admission's answer), with the
    /// ephemeral key made from BLAKE2b-256 keyed with the secret of ("hyzer-seal/v1" ‖ device
    /// key) (docs/formats.md): the same secret and device give the same bytes, so a rekey op is a
    /// function of its inputs, and only a holder of the secret could make the ephemeral key.
    /// `nil` when the device's key has no X25519 form.
    public static func seal(_ secret: [UInt8], to device: AuthorID) -> [UInt8]? {
        SealedBox.seal(
            secret, toSigningKey: device.bytes, ephemeralSeed: Blake2b.hash256(Array("hyzer-seal/v1".utf8) + device.bytes, key: secret))
    }

    /// A new group organized by `organizer`, with a secret from the system's secure random source.
    public static func new(organizer: AuthorID) -> GroupMembership {
        GroupMembership(id: groupID(organizer: organizer), secret: SecureRandom.bytes(secretBytes))
    }

    /// Whether `author` created the group `group` (and so may remove its members). A group
    /// created before organizers existed has a random id and no organizer.
    public static func isOrganizer(_ author: AuthorID, of group: UUID) -> Bool {
        groupID(organizer: author) == group
    }
}

extension Replica {
    /// The group this replica belongs to, if any, with every epoch's secret it can open.
    public func group() throws -> GroupMembership? {
        try read { db in try membership(db) }
    }

    func membership(_ db: Database) throws -> GroupMembership? {
        guard let id = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }),
            let secret = try Meta.get(.groupSecret, in: db), secret.count == GroupMembership.secretBytes
        else { return nil }
        var secrets = [try Self.tokenEpoch(db): secret]
        let successors = try Self.successors(db)
        let organizerLog = try Self.organizerLog(db)
        // A removal removes every key of the device's lineage: its predecessors and successors.
        var removedAt: [AuthorID: UInt64] = [:]
        for (device, sequence) in organizerLog.removals {
            for key in Self.lineage(of: device, successors) { removedAt[key] = min(removedAt[key] ?? .max, sequence) }
        }
        // Sealed to this key, or to a key this store continued from (it keeps their X25519 halves);
        // a removed key opens no epoch the organizer started after the removal.
        var openers = [(author, keys.curve25519SecretKey)]
        for (predecessor, secretKey) in try Self.predecessorKeys(db) { openers.append((predecessor, secretKey)) }
        for (key, secretKey) in openers {
            for row in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT epoch, sealed FROM rekeys WHERE recipient = ?"), arguments: [key])
            {
                guard let epoch = UInt32(exactly: try row.decode(Int64.self, forColumn: "epoch")), secrets[epoch] == nil,
                    removedAt[key].map({ removal in (organizerLog.rekeys[epoch] ?? .max) < removal }) ?? true,
                    let opened = SealedBox.open(
                        Array(try row.decode(Data.self, forColumn: "sealed")), signingKey: key.bytes, curve25519SecretKey: secretKey),
                    opened.count == GroupMembership.secretBytes
                else { continue }
                secrets[epoch] = opened
            }
        }
        let newest = secrets.keys.max()!
        let sealedTo = try AuthorID.fetchAll(
            db.cachedStatement(sql: "SELECT recipient FROM rekeys WHERE epoch = ?"), arguments: [Int64(newest)])
        // A successor opens what its predecessor's key opens, so it counts as a recipient too;
        // a successor of a removed device is removed with it (a thief holding the removed key
        // can sign a succession whenever it likes), and so is a predecessor (a store that
        // continued keeps the predecessor's key, which would open what is sealed to it).
        let removed = try Self.removedLineages(db, successors)
        let recipients = Self.closure(Set(sealedTo), successors).subtracting(removed)
        return GroupMembership(
            id: id, secrets: secrets, recipients: recipients, removed: removed, lineage: try lineage(db),
            removalProofs: try Self.removalProofs(
                organizerLog.removals, organizer: organizerLog.organizer, group: id, db, directory: directory))
    }

    /// The organizer's first removal of each device, as a `RemovalProof`, for each that this
    /// store holds with its own signature: an organizer's removal keeps it, and a delta ends a
    /// segment there (docs/store.md, "Signature compaction"); one a build before did not keep
    /// has no proof.
    static func removalProofs(
        _ removals: [AuthorID: UInt64], organizer: AuthorID?, group: UUID, _ db: Database, directory: URL
    ) throws -> [AuthorID: RemovalProof] {
        guard let organizer, !removals.isEmpty, let row = try AuthorRow.find(organizer, in: db) else { return [:] }
        var proofs: [AuthorID: RemovalProof] = [:]
        for (device, sequence) in removals
        where try Data.fetchOne(
            db.cachedStatement(sql: "SELECT signature FROM ops WHERE author = ? AND sequence = ?"), arguments: [row.id, Int64(sequence)])
            != nil
        {
            let segments = try segments(
                of: organizer, row: row.id, from: sequence, through: sequence, bytesMax: .max, db, directory: directory)
            guard segments.count == 1, let proof = RemovalProof(segments[0], group: group), proof.device == device else { continue }
            proofs[device] = proof
        }
        return proofs
    }

    /// The successions that lead to this store's key, nearest first (`GroupMembership.lineage`).
    private func lineage(_ db: Database) throws -> [SuccessionProof] {
        var lineage: [SuccessionProof] = []
        var successor = author
        while lineage.count < SuccessionProof.chainMax,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT predecessor, signature FROM deviceSuccessions WHERE successor = ? LIMIT 1"),
                arguments: [successor])
        {
            let predecessor: AuthorID = try row.decode(forColumn: "predecessor")
            lineage.append(SuccessionProof(predecessor: predecessor, signature: Array(try row.decode(Data.self, forColumn: "signature"))))
            successor = predecessor
        }
        return lineage
    }

    /// The keys this store continued from, oldest first, each with its X25519 secret key.
    static func predecessorKeys(_ db: Database) throws -> [(AuthorID, [UInt8])] {
        let bytes = try Meta.get(.predecessorKeys, in: db) ?? []
        return stride(from: 0, to: bytes.count - bytes.count % 64, by: 64).compactMap { start in
            AuthorID(bytes: Array(bytes[start..<start + 32])).map { ($0, Array(bytes[start + 32..<start + 64])) }
        }
    }

    /// Each device's successors, from validly signed successions (op kind 15) that count.
    static func successors(_ db: Database) throws -> [AuthorID: Set<AuthorID>] {
        var successors: [AuthorID: Set<AuthorID>] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT predecessor, successor FROM deviceSuccessions")) {
            successors[try row.decode(forColumn: "predecessor"), default: []].insert(try row.decode(forColumn: "successor"))
        }
        return successors
    }

    /// Every key of `device`'s lineage: itself and its predecessors and successors, transitively
    /// (a restored twin that continued from a common predecessor included).
    static func lineage(of device: AuthorID, _ successors: [AuthorID: Set<AuthorID>]) -> Set<AuthorID> {
        var neighbours = successors
        for (predecessor, next) in successors {
            for successor in next { neighbours[successor, default: []].insert(predecessor) }
        }
        return closure([device], neighbours)
    }

    /// The devices the organizer removed and every key of their lineages.
    static func removedLineages(_ db: Database, _ successors: [AuthorID: Set<AuthorID>]) throws -> Set<AuthorID> {
        let removals = try AuthorID.fetchAll(db.cachedStatement(sql: "SELECT device FROM removals"))
        return removals.reduce(into: Set<AuthorID>()) { removed, device in removed.formUnion(lineage(of: device, successors)) }
    }

    /// Where in the organizer's log (op sequence numbers that count) it removed each device
    /// (the first removal) and started each epoch.
    static func organizerLog(_ db: Database) throws -> (
        organizer: AuthorID?, removals: [AuthorID: UInt64], rekeys: [UInt32: UInt64]
    ) {
        guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) else { return (nil, [:], [:]) }
        var organizer: AuthorID?
        var removals: [AuthorID: UInt64] = [:]
        var rekeys: [UInt32: UInt64] = [:]
        for op in try StoredOp.fetchAll(db, where: "\(Schema.opKind(in: [.memberRemoved, .groupRekeyed])) AND \(Schema.counts)") {
            let author = op.author
            guard GroupMembership.isOrganizer(author, of: group) else { continue }
            organizer = author
            let sequence = op.sequence
            switch op.payload {
            case .memberRemoved(let device, _) where device != author: removals[device] = min(removals[device] ?? .max, sequence)
            case .groupRekeyed(let epoch, _): rekeys[epoch] = min(rekeys[epoch] ?? .max, sequence)
            default: break
            }
        }
        return (organizer, removals, rekeys)
    }

    /// `devices` and every successor of one of them, transitively.
    static func closure(_ devices: Set<AuthorID>, _ successors: [AuthorID: Set<AuthorID>]) -> Set<AuthorID> {
        var result = devices
        var pending = Array(devices)
        while let device = pending.popLast() {
            for successor in successors[device] ?? [] where result.insert(successor).inserted { pending.append(successor) }
        }
        return result
    }

    private static func tokenEpoch(_ db: Database) throws -> UInt32 {
        guard let bytes = try Meta.get(.groupEpoch, in: db), bytes.count == 4 else { return 0 }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Makes this replica a member of `group`. A replica belongs to one group: joining a
    /// second one is refused; joining the same one again with a newer epoch's token (a member
    /// the organizer's rekey missed) takes that token's secret instead, and otherwise changes
    /// nothing.
    public func join(_ group: GroupMembership) throws {
        try write { db in
            if let current = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) {
                guard current == group.id else {
                    throw GroupError.alreadyInGroup(current: current)
                }
                guard group.epoch > (try Self.tokenEpoch(db)) else { return }
            }
            try Meta.set(.groupID, group.id.bytes, in: db)
            try Meta.set(.groupSecret, group.secret, in: db)
            if group.epoch > 0 { try Meta.set(.groupEpoch, withUnsafeBytes(of: group.epoch.bigEndian) { Array($0) }, in: db) }
            // The organizer's removals and rekeys held before the group was known count from now on.
            if try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM ops o WHERE \(Schema.opKind(in: [.memberRemoved, .groupRekeyed])))"))
                == true
            {
                try Materializer.rebuild(db, policies.registers)
            }
            // Who is a member follows from the group's id (its organizer) and the admissions held.
            try Membership.refresh(db, policies.registers)
        }
    }

    /// The group, or an error telling the user how to get one.
    public func requireGroup() throws -> GroupMembership {
        guard let group = try group() else {
            if let invitation = try pendingInvitation() {
                throw GroupError.awaitingAdmission(group: invitation.groupID)
            }
            throw GroupError.noGroup(.sync)
        }
        return group
    }

    // MARK: Transport bookkeeping

    /// This replica's wall clock, in milliseconds since 1970: what a transport's own timers
    /// read (the simulator's virtual clock in a simulation).
    public func wallClockMilliseconds() -> UInt64 {
        clock.nowMilliseconds()
    }

    /// The records a transport keeps under `scope` (for instance, one shared folder).
    public func syncRecords(_ scope: String) throws -> [String: [UInt8]] {
        try read { db in
            var records: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM syncRecords WHERE scope = ?"), arguments: [scope]) {
                records[try row.decode(forColumn: "key")] = Array(try row.decode(Data.self, forColumn: "value"))
            }
            return records
        }
    }

    /// Sets (or, for `nil`, removes) records under `scope`, in one transaction.
    public func updateSyncRecords(_ scope: String, _ updates: [String: [UInt8]?]) throws {
        try write { db in
            for (key, value) in updates {
                if let value {
                    try db.cachedStatement(
                        sql:
                            "INSERT INTO syncRecords (scope, key, value) VALUES (?, ?, ?) ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value"
                    ).execute(
                        arguments: [scope, key, Data(value)])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM syncRecords WHERE scope = ? AND key = ?").execute(arguments: [scope, key])
                }
            }
        }
    }
}

extension Replica {
    /// Removes `device` from the group and rekeys it, in one transaction: an op of the organizer
    /// (only the organizer may) that makes every replica ignore the device's ops above the last
    /// one this replica holds, then a rekey to `newSecret` that leaves the device out. Removing
    /// a device already removed changes nothing.
    @discardableResult
    public func removeMember(_ device: String, newSecret: [UInt8]) throws -> (device: AuthorID, through: UInt64, epoch: UInt32) {
        try write { db in
            let group = try requireOrganizer(db)
            let target = try Self.resolveDevice(device, ViewReader(db: db))
            guard target != author else {
                throw GroupError.organizerCannotRemoveItself
            }
            if let through = try Self.removedThrough(target, db) { return (target, through, group.epoch) }
            let through = try AuthorRow.find(target, in: db)?.headSequence ?? 0
            try append(.memberRemoved(device: target, through: through), in: db)
            return (target, through, try appendRekey(newSecret, db).epoch)
        }
    }

    /// Replaces the group secret with `newSecret`, sealed to every device this replica knows
    /// that was not removed (this one included): the organizer only. Returns the new epoch and
    /// how many devices it was sealed to.
    @discardableResult
    public func rekeyGroup(newSecret: [UInt8]) throws -> (epoch: UInt32, recipients: Int) {
        try write { db in
            _ = try requireOrganizer(db)
            return try appendRekey(newSecret, db)
        }
    }

    private func requireOrganizer(_ db: Database) throws -> GroupMembership {
        guard let group = try membership(db) else {
            throw GroupError.noGroup(.removeOrRekey)
        }
        guard GroupMembership.isOrganizer(author, of: group.id) else { throw ReplicaError.notGroupOrganizer }
        return group
    }

    private func appendRekey(_ newSecret: [UInt8], _ db: Database) throws -> (epoch: UInt32, recipients: Int) {
        precondition(newSecret.count == GroupMembership.secretBytes, "a group secret has 32 bytes")
        let group = try requireOrganizer(db)
        guard group.epoch < UInt32.max else {
            throw GroupError.rekeysExhausted
        }
        // The members (docs/security.md, "Membership"): the organizer, the devices admitted with
        // an invitation and their own proof (one that has not synced yet included), and the
        // successors of members; not a key of a removed device's lineage.
        var members = try Membership.members(db) ?? []
        members.subtract(group.removed)
        members.insert(author)
        guard members.count <= OpPayload.Limits.rekeyRecipientsMax else {
            throw GroupError.tooManyDevicesToRekey(limit: OpPayload.Limits.rekeyRecipientsMax)
        }
        var sealed: [AuthorID: [UInt8]] = [:]
        for member in members { sealed[member] = GroupMembership.seal(newSecret, to: member) }
        let epoch = group.epoch + 1
        try append(.groupRekeyed(epoch: epoch, sealed: sealed), in: db)
        return (epoch, sealed.count)
    }

    /// The organizer's rekey op that started `epoch`, if this replica holds it: its author and
    /// sequence number.
    public func rekeyOp(epoch: UInt32) throws -> (organizer: AuthorID, sequence: UInt64)? {
        try read { db in
            guard let group = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) else { return nil }
            // In key order, so that every replica names the same op where two organizers' would do.
            let rekeys = try StoredOp.fetchAll(db, where: Schema.opKind(in: [.groupRekeyed])).sorted {
                ($0.author, $0.sequence) < ($1.author, $1.sequence)
            }
            for op in rekeys {
                guard GroupMembership.isOrganizer(op.author, of: group), case .groupRekeyed(epoch, _) = op.payload else { continue }
                return (op.author, op.sequence)
            }
            return nil
        }
    }

    /// The devices the organizer removed, with the last op of each that counts.
    public func removedMembers() throws -> [AuthorID: UInt64] {
        try read { db in
            var removed: [AuthorID: UInt64] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT device, through FROM removals")) {
                removed[try row.decode(forColumn: "device")] = try row.decode(forColumn: "through")
            }
            return removed
        }
    }
}
