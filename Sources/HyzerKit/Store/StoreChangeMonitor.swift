import Foundation
import GRDB

/// Tells when anything — this process or another one — committed to a replica's store, by
/// SQLite's `PRAGMA data_version` on a connection of its own (the counter moves when *other*
/// connections commit). Cheap enough to poll every few milliseconds.
public final class StoreChangeMonitor: Sendable {
    private let connection: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A number that changes whenever the store changed since the last call.
    public func version() throws -> Int {
        try connection.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}

extension Replica {
    /// A monitor of this store's changes, for live sync and `standings --watch`.
    public func changeMonitor() throws -> StoreChangeMonitor {
        do {
            return try StoreChangeMonitor(path: directory.appendingPathComponent(Self.databaseFileName).path)
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        }
    }
}
