import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerTestSupport
import Testing

@testable import HyzerKit

/// Creating, opening and refusing stores; the seeded courses; the append-only log.
@Suite struct StoreLifecycleTests {
    @Test func createWritesTheDeviceRecordAndTheOwner() throws {
        let test = try TestReplica("ava-phone", kind: .phone, owner: "Ava", keySeed: 1)
        let identity = try test.replica.identity()

        #expect(identity.author == AuthorID(bytes: test.keys.publicKey))
        #expect(identity.name == "ava-phone")
        #expect(identity.kind == .phone)
        #expect(identity.owner?.displayName == "Ava")
        #expect(identity.owner?.createdBy == test.author)

        let status = try test.replica.status()
        #expect(status.opCount == 2, "device record and owner player")
        #expect(status.versionVector.heads == [test.author: 2])
        #expect(status.players == 1)
        #expect(status.courses == 3)
        #expect(status.rounds == 0)
        #expect(status.pendingOps == 0)
        #expect(status.forks.isEmpty)
        #expect(try test.replica.devices().map(\.name) == ["ava-phone"])
        #expect(try test.replica.ownership().device(test.author, owns: ParticipantID(player: try #require(identity.owner).id)))
    }

    @Test func createWithoutOwnerWritesOnlyTheDeviceRecord() throws {
        let test = try TestReplica("laptop", kind: .laptop, keySeed: 2)
        #expect(try test.replica.identity().owner == nil)
        #expect(try test.replica.status().opCount == 1)
        #expect(try test.replica.players().isEmpty)
    }

    @Test func reopeningKeepsEverything() throws {
        let directory = TemporaryDirectory("hyzer-kit-reopen")
        let store = directory.path("store")
        let clock = TestClock(start: baseTime)
        let created = try Replica.create(at: store, name: "phone", kind: .phone, owner: "Ava", clock: clock, keys: seededKeys(3))
        try created.addPlayer(name: "Ben")
        let round = try created.startRound(course: "Morley Field", players: ["Ava", "Ben"])
        try created.recordScore(round: round.id.lowercased, player: "Ben", hole: 1, strokes: 4)
        let before = try snapshot(created)
        try created.close()

        let reopened = try Replica.open(at: store, clock: clock)
        #expect(reopened.author == created.author)
        #expect(try snapshot(reopened) == before)
        #expect(try reopened.identity().owner?.displayName == "Ava")
        #expect(try reopened.verify().isIntact)
    }

    /// A store restored from an old backup takes back its own later ops from a peer, and then
    /// refuses to write: the copy it was restored from may still write, and two writers of one
    /// key fork its log. `device continue` carries on under a new key.
    @Test func aRestoredStoreThatLearnsOfItsOwnLaterOpsRefusesToWrite() throws {
        let original = try TestReplica("phone", owner: "Ava", keySeed: 14)
        try original.replica.addPlayer(name: "Ben")
        let backup = try StoreTemplate(closing: original, start: baseTime + 10_000)
        let live = try backup.copy()
        for name in ["Cal", "Dee", "Eve"] { try live.replica.addPlayer(name: name) }
        let peer = try TestReplica("peer", keySeed: 15, start: baseTime + 20_000)
        try peer.replica.pull(from: live.replica)

        let restored = try backup.copy()
        #expect(try restored.replica.versionVector()[restored.author] == 3)
        let report = try restored.replica.pull(from: peer.replica)
        #expect(report.opsApplied == 4, "its own ops 4 to 6 and the peer's device record")
        #expect(try restored.replica.versionVector()[restored.author] == 6)
        #expect(throws: ReplicaError.writtenElsewhere(author: restored.author.short, forkedAt: nil)) {
            try restored.replica.addPlayer(name: "Fay")
        }
        #expect(try peer.replica.status().forks.isEmpty)
        #expect(try peer.replica.digest() == restored.replica.digest())
    }

    /// The directory, the key and every database file (`-wal` and `-shm` exist while the store
    /// is open) are private to their owner.
    @Test func theStoreFilesArePrivate() throws {
        let test = try TestReplica("phone", keySeed: 4)
        func mode(_ name: String) throws -> Int? {
            let path = name.isEmpty ? test.replica.directory.path : test.replica.directory.appendingPathComponent(name).path
            return (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        #expect(try mode("") == 0o700)
        #expect(try mode(Replica.keyFileName) == 0o600)
        for suffix in ["", "-wal", "-shm"] { #expect(try mode(Replica.databaseFileName + suffix) == 0o600, "\(suffix)") }
    }

    /// A reported commit survives a power loss, not only a crash: the writer syncs the WAL on
    /// every commit (GRDB's WAL setup would leave it at NORMAL).
    @Test func theWriterCommitsWithSynchronousFull() throws {
        let test = try TestReplica("phone", keySeed: 5)
        #expect(try test.replica.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        try test.replica.close()
        let reopened = try Replica.open(at: test.directory.path("store"), clock: test.clock)
        #expect(try reopened.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
    }

    @Test func creatingOverAnExistingStoreIsRefused() throws {
        let test = try TestReplica("phone", keySeed: 5)
        let before = try Fingerprint(test.replica)
        #expect(throws: ReplicaError.storeExists(path: test.replica.directory.path)) {
            try Replica.create(at: test.replica.directory, name: "other", kind: .watch, keys: seededKeys(6))
        }
        #expect(try Fingerprint(test.replica) == before)
        #expect(try Replica.open(at: test.replica.directory).author == test.author, "the key file was not replaced")
    }

    @Test(arguments: ["", " padded", "tab\tname"])
    func creatingWithABadDeviceNameLeavesNoStore(name: String) throws {
        let directory = TemporaryDirectory("hyzer-kit-badname")
        let store = directory.path("store")
        #expect(throws: InputError.self) {
            try Replica.create(at: store, name: name, kind: .phone, keys: seededKeys(7))
        }
        #expect(throws: ReplicaError.notAStore(path: store.path)) { try Replica.open(at: store) }
    }

    @Test func openingAnEmptyOrMissingDirectoryIsNotAStore() throws {
        let directory = TemporaryDirectory("hyzer-kit-empty")
        #expect(throws: ReplicaError.notAStore(path: directory.url.path)) { try Replica.open(at: directory.url) }
        let missing = directory.path("nothing-here")
        #expect(throws: ReplicaError.notAStore(path: missing.path)) { try Replica.open(at: missing) }
    }

    @Test func aDatabaseOverwrittenWithJunkIsACorruptStore() throws {
        let directory = TemporaryDirectory("hyzer-kit-junk")
        let store = directory.path("store")
        try Replica.create(at: store, name: "phone", kind: .phone, keys: seededKeys(8)).close()
        let database = store.appendingPathComponent(Replica.databaseFileName)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: database)

        let error = #expect(throws: ReplicaError.self) { try Replica.open(at: store) }
        guard case .corruptStore(let path, _) = error else {
            Issue.record("expected corruptStore, got \(String(describing: error))")
            return
        }
        #expect(path == store.path)
    }

    @Test func aKeyFileOfAnotherReplicaIsRefused() throws {
        let mine = try TestReplica("mine", keySeed: 9)
        let theirs = try TestReplica("theirs", keySeed: 10)
        let keyURL = mine.replica.directory.appendingPathComponent(Replica.keyFileName)
        try FileManager.default.removeItem(at: keyURL)
        try FileManager.default.copyItem(at: theirs.replica.directory.appendingPathComponent(Replica.keyFileName), to: keyURL)

        #expect(throws: ReplicaError.badKeyFile(path: keyURL.path, detail: "it belongs to another replica")) {
            try Replica.open(at: mine.replica.directory)
        }
    }

    /// What a damaged key file holds, and the detail the error gives.
    static let damagedKeyFiles: [(contents: String?, detail: String)] = [
        (nil, "missing or unreadable"),
        ("not hex at all\n", "not an Ed25519 secret key"),
        ("abcd\n", "not an Ed25519 secret key"),
        (String(repeating: "00", count: 64) + "\n", "not an Ed25519 secret key"),
    ]

    @Test(arguments: damagedKeyFiles)
    func aDamagedKeyFileIsRefused(contents: String?, detail: String) throws {
        let test = try TestReplica("phone", keySeed: 11)
        let keyURL = test.replica.directory.appendingPathComponent(Replica.keyFileName)
        try FileManager.default.removeItem(at: keyURL)
        if let contents { try Data(contents.utf8).write(to: keyURL) }

        #expect(throws: ReplicaError.badKeyFile(path: keyURL.path, detail: detail)) {
            try Replica.open(at: test.replica.directory)
        }
    }

    // MARK: Seeded courses

    static let seededTotals: [(name: String, totalPar: Int)] = [("Morley Field", 54), ("Maple Hill", 58), ("DeLaveaga", 57)]

    @Test func aNewStoreHoldsTheThreeSeededCourses() throws {
        let test = try TestReplica("phone", keySeed: 12)
        let courses = try test.replica.courses()

        #expect(courses.count == 3)
        for (name, totalPar) in Self.seededTotals {
            let course = try #require(courses.first { $0.name == name }, "seeded course \(name)")
            #expect(course.holeCount == 18, "\(name)")
            #expect(course.totalPar == totalPar, "\(name)")
            #expect(course.isSeeded, "\(name)")
            #expect(!course.deleted, "\(name)")
            #expect(course.createdAt == .zero, "\(name)")
            #expect(course.id == SeededCourses.all.first { $0.name == name }?.id, "\(name): name-based id")
        }
    }

    @Test func replicasSeedingIndependentlyStillHoldThreeCoursesAfterSync() throws {
        let replicas = try (20..<24).map { try TestReplica("device-\($0)", keySeed: UInt8($0)) }
        try syncAll(replicas)
        for test in replicas {
            #expect(try test.replica.courses().map(\.name) == ["DeLaveaga", "Maple Hill", "Morley Field"])
            #expect(try test.replica.status().courses == 3)
        }
    }

    // MARK: The append-only log

    @Test(arguments: [
        "UPDATE ops SET tail = x'00' WHERE sequence = 1",
        "UPDATE ops SET hash = zeroblob(32) WHERE sequence = 1",
        "UPDATE ops SET sequence = 9 WHERE sequence = 3",
        "UPDATE ops SET signature = zeroblob(64) WHERE sequence = 1",
        "DELETE FROM ops WHERE sequence = 1",
        "DELETE FROM ops",
    ])
    func theOpLogRefusesUpdateAndDelete(sql: String) throws {
        let test = try TestReplica("phone", owner: "Ava", keySeed: 13)
        try test.replica.addPlayer(name: "Ben")
        let before = try Fingerprint(test.replica)

        let raw = try DatabaseQueue(path: test.replica.directory.appendingPathComponent(Replica.databaseFileName).path)
        let error = #expect(throws: DatabaseError.self) { try raw.write { try $0.execute(sql: sql) } }
        #expect(error?.message == "the op log is append-only")
        #expect(try raw.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM ops") } == 3)
        try raw.close()

        #expect(try Fingerprint(test.replica) == before)
        #expect(try test.replica.verify().isIntact)
    }
}
