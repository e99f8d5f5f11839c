import Foundation
import GRDB
import HyzerDomain

/// The group a replica syncs with: only holders of its secret can read its bundles or
/// complete a handshake with its members.
public struct GroupMembership: Hashable, Sendable {
    public static let secretBytes = 32

    public let id: UUID
    /// 32 bytes; never printed except inside an invite token.
    public let secret: [UInt8]

    public init(id: UUID, secret: [UInt8]) {
        precondition(secret.count == Self.secretBytes, "a group secret has 32 bytes")
        self.id = id
        self.secret = secret
    }
}

extension Replica {
    /// The group this replica belongs to, if any.
    public func group() throws -> GroupMembership? {
        try read { db in
            guard let id = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }),
                let secret = try Meta.get(.groupSecret, in: db), secret.count == GroupMembership.secretBytes
            else { return nil }
            return GroupMembership(id: id, secret: secret)
        }
    }

    /// Makes this replica a member of `group`. A replica belongs to one group: joining a
    /// second one is refused; joining the same one again changes nothing.
    public func join(_ group: GroupMembership) throws {
        try write { db in
            if let current = try Meta.get(.groupID, in: db).flatMap({ UUID(bytes: $0) }) {
                guard current == group.id else {
                    throw ReplicaError.invalidValue(
                        "this replica already belongs to group \(current.lowercased); use a new store (`hyzer-peer init --store DIR`) for another group"
                    )
                }
                return
            }
            try Meta.set(.groupID, group.id.bytes, in: db)
            try Meta.set(.groupSecret, group.secret, in: db)
        }
    }

    /// The group, or an error telling the user how to get one.
    public func requireGroup() throws -> GroupMembership {
        guard let group = try group() else {
            throw ReplicaError.invalidValue(
                "this replica belongs to no group, and sync needs one; run `hyzer-peer group create`, or `hyzer-peer group join TOKEN` with a token from `group invite`"
            )
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
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM syncRecords WHERE scope = ?", arguments: [scope]) {
                records[row[0]] = Array(row[1] as Data)
            }
            return records
        }
    }

    /// Sets (or, for `nil`, removes) records under `scope`, in one transaction.
    public func updateSyncRecords(_ scope: String, _ updates: [String: [UInt8]?]) throws {
        try write { db in
            for (key, value) in updates {
                if let value {
                    try db.execute(
                        sql:
                            "INSERT INTO syncRecords (scope, key, value) VALUES (?, ?, ?) ON CONFLICT(scope, key) DO UPDATE SET value = excluded.value",
                        arguments: [scope, key, Data(value)])
                } else {
                    try db.execute(sql: "DELETE FROM syncRecords WHERE scope = ? AND key = ?", arguments: [scope, key])
                }
            }
        }
    }
}
