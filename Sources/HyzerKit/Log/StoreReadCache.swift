import GRDB
import HyzerDomain
import Synchronization

/// The reads a live connection asks for at every change and every heartbeat (the version
/// vector, the holdings, when the next held segment is due), kept per reader connection as of
/// its `PRAGMA data_version`. SQLite changes that number for a connection whenever another
/// connection, in this process or any other, commits to the database; the pool's reader
/// connections never write, so an entry is valid exactly while its number stands. A derived
/// copy, never the truth: every read checks it against the database (docs/store.md, "Reads
/// kept between changes").
final class StoreReadCache: Sendable {
    /// What one reader connection read at one data version.
    struct Entry: Sendable {
        let dataVersion: Int64
        let vector: VersionVector
        /// The earliest time a held segment is released at, if any is held.
        let nextRelease: UInt64?
        var holdings: Holdings?

        /// Whether a held segment's time has come by `now`.
        func releaseIsDue(now: UInt64) -> Bool { nextRelease.map { $0 <= now } ?? false }
    }

    /// A reader connection's entry. The connection is held weakly, so a connection that closes
    /// leaves an entry that matches no later connection, even one at the same address.
    private final class Slot: @unchecked Sendable {
        // Compared by identity only, and only under `slots`' lock.
        weak var connection: Database?
        var entry: Entry

        init(connection: Database, entry: Entry) {
            self.connection = connection
            self.entry = entry
        }
    }

    private let slots = Mutex<[ObjectIdentifier: Slot]>([:])

    /// This snapshot's entry: the kept one if nothing committed since it was read, else a new one.
    func entry(_ db: Database) throws -> Entry {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        let key = ObjectIdentifier(db)
        if let kept = slots.withLock({ slots in slots[key].flatMap { $0.connection === db ? $0.entry : nil } }),
            kept.dataVersion == version
        {
            return kept
        }
        let entry = Entry(
            dataVersion: version, vector: try Replica.versionVector(db), nextRelease: try Replica.nextRelease(db), holdings: nil)
        slots.withLock { slots in
            slots = slots.filter { $0.value.connection != nil }
            slots[key] = Slot(connection: db, entry: entry)
        }
        return entry
    }

    /// This snapshot's holdings: the kept ones, or `read`'s, kept for the next caller.
    func holdings(_ db: Database, _ read: (VersionVector) throws -> Holdings) throws -> Holdings {
        let entry = try entry(db)
        if let holdings = entry.holdings { return holdings }
        let holdings = try read(entry.vector)
        let key = ObjectIdentifier(db)
        slots.withLock { slots in
            guard let slot = slots[key], slot.connection === db, slot.entry.dataVersion == entry.dataVersion else { return }
            slot.entry.holdings = holdings
        }
        return holdings
    }
}
