import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

/// One replica: a store directory (mode 0700) holding the SQLite database (`replica.sqlite`,
/// mode 0600) and the Ed25519 secret key (`identity.key`, mode 0600).
///
/// Every change is an op appended to this replica's signed log in the same transaction as the
/// view tables it updates. A `Replica` holds no mutable state of its own but a copy of reads that
/// every read checks against the database (`StoreReadCache`): the database is the single owner
/// of the truth, so it is safe to share between tasks.
public final class Replica: Sendable {
    /// The database's file name inside the store directory.
    public static let databaseFileName = "replica.sqlite"
    /// The secret key's file name inside the store directory.
    public static let keyFileName = "identity.key"

    /// The store directory.
    public let directory: URL
    /// This replica's author id (its public key).
    public let author: AuthorID
    let keys: SigningKeyPair
    let database: DatabasePool
    let clock: any WallClock
    /// The time an ingest divides its work by (`SystemIngestClock` everywhere but the simulator).
    let ingestClock: any IngestClock
    /// The rules this replica applies (`.shipped` everywhere but the simulator's own tests).
    let policies: ReplicaPolicies
    /// Where the database file lives (`.files` everywhere but the simulator).
    let medium: DatabaseMedium
    /// The vector and holdings as of each reader connection's last read, while nothing commits.
    let readCache = StoreReadCache()
    /// The vector as the writer's connection last read it after an ingest, while only this
    /// writer commits.
    let writerVector = WriterVector()
    /// Each author's head as a delta last read it, with its whole hash.
    let headHashes = HeadHashes()

    init(
        directory: URL, keys: SigningKeyPair, database: DatabasePool, clock: any WallClock, ingestClock: any IngestClock,
        policies: ReplicaPolicies, medium: DatabaseMedium
    ) {
        self.directory = directory
        self.keys = keys
        self.author = keys.author
        self.database = database
        self.clock = clock
        self.ingestClock = ingestClock
        self.policies = policies
        self.medium = medium
    }

    /// Creates a store in `directory`: the key pair, the database with the seeded courses, the
    /// device record, and the owning player when `owner` is given. The database lives on
    /// `medium` (the operating system's files unless a SQLite VFS is named); `clock` is the wall
    /// time of its ops, `ingestClock` the time its ingests divide their work by.
    public static func create(
        at directory: URL, name: String, kind: DeviceKind, owner: String? = nil,
        clock: any WallClock = SystemClock(), ingestClock: any IngestClock = SystemIngestClock(), keys: SigningKeyPair = .generate(),
        policies: ReplicaPolicies = .shipped, medium: DatabaseMedium = .files
    ) throws -> Replica {
        let databaseURL = directory.appendingPathComponent(databaseFileName)
        let keyURL = directory.appendingPathComponent(keyFileName)
        let files = FileManager.default
        if medium.exists(databaseURL) { throw ReplicaError.storeExists(path: directory.path) }
        try Validation.name(name, of: "device")
        if let owner { try Validation.name(owner, of: "player") }
        do {
            // The directory holds the secret key and the group secret: only its owner enters it.
            try files.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard mkdir(directory.path, 0o700) == 0 || (errno == EEXIST && chmod(directory.path, 0o700) == 0) else {
                throw ReplicaError.storage(detail: "cannot create \(directory.path): \(String(cString: strerror(errno)))")
            }
            try KeyFile.write(keys, to: keyURL)
        } catch let error as ReplicaError {
            throw error
        } catch {
            throw ReplicaError.storage(detail: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        // The database is written under a temporary name and renamed into place only when
        // complete, so a crash during init never leaves a half-made store. A VFS cannot rename:
        // there the database is built in place (the simulator never cuts power during init).
        let partialURL = medium.vfs == nil ? directory.appendingPathComponent(databaseFileName + ".partial") : databaseURL
        for suffix in ["", "-wal", "-shm"] { medium.remove(URL(fileURLWithPath: partialURL.path + suffix)) }
        if medium.vfs == nil {
            // SQLite opens an empty file as a new database and creates `-wal` and `-shm` with the
            // main file's mode, so creating it 0600 first keeps all three private whatever the umask.
            let created = SystemCall.open(partialURL.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard created >= 0 else {
                throw ReplicaError.storage(detail: "cannot create \(partialURL.path): \(String(cString: strerror(errno)))")
            }
            SystemCall.close(created)
        }
        do {
            let partial = try DatabaseQueue(path: medium.location(of: partialURL), configuration: configuration())
            try Schema.migrator(policies.registers).migrate(partial)
            try partial.write { db in
                try Meta.set(.replica, keys.publicKey, in: db)
                try Materializer.seed(db, policies.registers)
            }
            try partial.close()
        } catch {
            throw ReplicaError.storage(detail: "cannot create the database: \(error)")
        }
        if medium.vfs == nil {
            for suffix in ["-wal", "-shm"] { try? files.removeItem(atPath: partialURL.path + suffix) }
            guard rename(partialURL.path, databaseURL.path) == 0 else {
                throw ReplicaError.storage(detail: "cannot move the new database into place")
            }
        }
        let replica = try open(at: directory, clock: clock, ingestClock: ingestClock, policies: policies, medium: medium)
        try replica.write { db in
            try Meta.set(.name, Array(name.utf8), in: db)
            try Meta.set(.kind, Array(kind.rawValue.utf8), in: db)
            _ = try replica.append(.deviceRegistered(name: name, kind: kind), in: db)
            if let owner {
                let op = try replica.append(.playerCreated(displayName: owner), in: db)
                try Meta.set(.owner, Array(op.entityID.lowercased.utf8), in: db)
            }
        }
        return replica
    }

    /// Opens the store in `directory`, applying `policies`, its database on `medium`; `clock` is
    /// the wall time of its ops, `ingestClock` the time its ingests divide their work by.
    public static func open(
        at directory: URL, clock: any WallClock = SystemClock(), ingestClock: any IngestClock = SystemIngestClock(),
        policies: ReplicaPolicies = .shipped, medium: DatabaseMedium = .files
    ) throws -> Replica {
        let databaseURL = directory.appendingPathComponent(databaseFileName)
        let keyURL = directory.appendingPathComponent(keyFileName)
        guard medium.exists(databaseURL) else {
            throw ReplicaError.notAStore(path: directory.path)
        }
        try Self.finishSuccession(in: directory, medium: medium)
        let keys = try KeyFile.read(from: keyURL)
        let database: DatabasePool
        let replicaKey: [UInt8]?
        do {
            database = try DatabasePool(path: medium.location(of: databaseURL), configuration: configuration())
            // GRDB sets `synchronous = NORMAL` on the writer when it turns WAL on, after
            // `prepareDatabase`: FULL again, so a reported commit survives a power loss too.
            try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            let migrator = Schema.migrator(policies.registers)
            let shrinks = try database.read { !Set(Schema.shrinkingMigrations).isSubset(of: try migrator.appliedIdentifiers($0)) }
            try migrator.migrate(database)
            // The upgrade dropped most stored signatures or hash bytes: the file gives their pages
            // back once. A store that cannot be vacuumed now (no room for the copy) is as correct,
            // only larger.
            if shrinks { try? database.writeWithoutTransaction { try $0.execute(sql: "VACUUM") } }
            replicaKey = try database.read { try Meta.get(.replica, in: $0) }
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        } catch {
            throw ReplicaError.corruptStore(path: directory.path, detail: "\(error)")
        }
        guard replicaKey == keys.publicKey else {
            throw ReplicaError.badKeyFile(path: keyURL.path, detail: "it belongs to another replica")
        }
        return Replica(
            directory: directory, keys: keys, database: database, clock: clock, ingestClock: ingestClock, policies: policies, medium: medium
        )
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .callback(retryWhileBusy)
        configuration.prepareDatabase { db in
            // A 32 MiB page cache keeps a large ingest's B-tree pages in memory until the commit.
            try db.execute(sql: "PRAGMA cache_size = -32768")
        }
        return configuration
    }

    /// How long a writer waits for another process's transaction before the store is busy
    /// (`ReplicaError.storeBusy`).
    static let busyWait: Duration = .seconds(5)

    /// SQLite's busy handler: retry every millisecond, so a writer gets in between two of a
    /// long ingest's short transactions, until `busyWait` has passed since this wait began
    /// (`tries` is 0 at its start). The time is read from the clock, not counted in tries: on a
    /// loaded machine a millisecond's sleep lasts longer.
    @Sendable private static func retryWhileBusy(tries: Int) -> Bool {
        let now = ContinuousClock.now
        let thread = Thread.current.threadDictionary
        if tries == 0 { thread["hyzer.busySince"] = now }
        guard let since = thread["hyzer.busySince"] as? ContinuousClock.Instant, now - since < busyWait else { return false }
        usleep(1_000)
        return true
    }

    static func classify(_ error: DatabaseError, path: String) -> ReplicaError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            .corruptStore(path: path, detail: error.message ?? "not a database")
        case .SQLITE_FULL:
            .storage(detail: "the disk is full")
        case .SQLITE_BUSY:
            .storeBusy(holder: StoreHolder.find(database: URL(fileURLWithPath: path).appendingPathComponent(databaseFileName).path))
        default:
            .storage(detail: error.message ?? "\(error.resultCode)")
        }
    }

    /// Runs `body` in one write transaction; any error rolls everything back.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try write(body, afterCommit: { _ in })
    }

    /// Runs `body` in one write transaction (as `write(_:)`), then `afterCommit` on the writer's
    /// connection once it committed, before any other write: a read there finds the pages the
    /// commit changed still in the writer's cache, where a reader's connection would read them
    /// again.
    func write<T>(_ body: (Database) throws -> T, afterCommit: (Database) throws -> Void) throws -> T {
        do {
            return try database.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                try afterCommit(db)
                guard let result else { preconditionFailure("a committed transaction ran its body") }
                return result
            }
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        }
    }

    /// Runs `body` on a consistent snapshot.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw Self.classify(error, path: directory.path)
        }
    }

    /// This replica's Ed25519 signature of `message`. Callers sign only messages that begin
    /// with their own domain-separation prefix (as bundles and handshakes do), never raw data.
    public func signature(of message: [UInt8]) -> [UInt8] {
        keys.sign(message)
    }

    /// Closes the database. The replica must not be used afterwards.
    public func close() throws {
        try database.close()
    }
}
