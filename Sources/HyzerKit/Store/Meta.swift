import Foundation
import GRDB

/// The replica's own settings, one row each in the `meta` table.
enum Meta: String {
    /// The replica's public key.
    case replica
    /// The device's name and kind, as `init` set them.
    case name, kind
    /// The id of the player this device owns from `init --owner`.
    case owner
    /// The hybrid logical clock's latest reading (12 bytes).
    case clock
    /// Set when ingest met ops of this replica's own key that it did not write: another copy
    /// of the store writes too, so this one refuses to write (docs/store.md).
    case writtenElsewhere
    /// The group this replica syncs with: its id (16 bytes) and the secret (32 bytes) of the
    /// invite token it joined with, whose epoch (4 bytes) is stored when it is not 0.
    case groupID, groupSecret, groupEpoch
    /// An invitation accepted with `group join` whose answer has not arrived yet: the group id
    /// (16 bytes) and the invitation secret (32 bytes). Removed once the device is admitted.
    case invitation
    /// What this store keeps of each key it continued from (`device continue`), to open group
    /// secrets sealed to them: per key, its Ed25519 public key (32 bytes) and its X25519 secret
    /// key (32 bytes), which opens sealed boxes but cannot sign.
    case predecessorKeys

    static func get(_ key: Meta, in db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key.rawValue]).map { Array($0) }
    }

    static func set(_ key: Meta, _ value: [UInt8], in db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        ).execute(
            arguments: [key.rawValue, Data(value)])
    }

    static func remove(_ key: Meta, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM meta WHERE key = ?").execute(arguments: [key.rawValue])
    }

    static func text(_ key: Meta, in db: Database) throws -> String? {
        try get(key, in: db).map { String(decoding: $0, as: UTF8.self) }
    }
}
