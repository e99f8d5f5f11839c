import Foundation
import HyzerDomain
import HyzerKit

/// The store's directory, removed when the process exits (libFuzzer calls `exit`).
nonisolated(unsafe) private var removedAtExit: String?

/// A real replica in a temporary directory (in memory where `/dev/shm` exists), created once
/// per process, in the fuzz group. `reset()` puts back a copy of the pristine database, so each
/// input that changed the store starts again from the same state.
public final class FuzzStore {
    public private(set) var replica: Replica
    private let store: URL
    private let pristine: URL

    /// `prepare` runs on the new store before it is kept as the pristine copy.
    public init(prepare: (Replica) throws -> Void = { _ in }) throws {
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let root = base.appendingPathComponent("hyzer-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        store = root.appendingPathComponent("store")
        pristine = root.appendingPathComponent("pristine.sqlite")
        let created = try Replica.create(at: store, name: "fuzz", kind: .phone, keys: FuzzFixtures.keys(9))
        try created.join(FuzzFixtures.group)
        try prepare(created)
        try created.close()
        try Self.copyDatabase(from: store.appendingPathComponent(Replica.databaseFileName), to: pristine)
        replica = try Replica.open(at: store)
        removedAtExit = root.path
        atexit { if let path = removedAtExit { try? FileManager.default.removeItem(atPath: path) } }
    }

    /// Back to the pristine store.
    public func reset() throws {
        try replica.close()
        let database = store.appendingPathComponent(Replica.databaseFileName)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        try Self.copyDatabase(from: pristine, to: database)
        replica = try Replica.open(at: store)
    }

    /// The database file and its write-ahead log, which may still hold the last transactions.
    /// libFuzzer's timer signal can interrupt a copy (EINTR): a failed copy is tried again.
    private static func copyDatabase(from source: URL, to target: URL) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            for attempt in 1...5 {
                try? FileManager.default.removeItem(atPath: target.path + suffix)
                do {
                    try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
                    break
                } catch  where attempt < 5 {
                    continue
                }
            }
        }
    }
}
