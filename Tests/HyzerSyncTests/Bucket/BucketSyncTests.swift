import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/bucket-sync.md: the folder protocol over a real S3-compatible store (SeaweedFS, started by
/// each test on loopback with one identity, so every signature is checked). Under CI a store
/// that cannot start fails the test; elsewhere the test is skipped with the reason.
@Suite struct BucketSyncTests {
    static let enabled = SeaweedFS.executable != nil || SeaweedFS.underCI

    /// A folder on `store` under `prefix`, with a client of its own (so its requests are its own).
    static func folder(_ store: SeaweedFS, _ prefix: String, secret: String = SeaweedFS.secretKey) throws -> BucketFolder {
        try store.folder(prefix, secret: secret)
    }

    /// A store with its bucket created and answering signed requests.
    static func startStore() throws -> SeaweedFS { try SeaweedFS.ready() }

    /// One sync of `peer` through `folder`, and the requests it sent.
    static func sync(_ peer: Peer, _ folder: BucketFolder) throws -> (report: FolderSyncReport, requests: Int) {
        let before = folder.client.requestsSent
        let report = try peer.sync(folder)
        return (report, folder.client.requestsSent - before)
    }

    /// Syncs every device through its folder until a round moves nothing; every replica then holds the same ops.
    /// Refusals other than `expected` ones fail the test.
    static func syncUntilQuiet(
        _ devices: [(peer: Peer, folder: BucketFolder)], expected: (FolderSyncReport.Rejection) -> Bool = { _ in false },
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for _ in 0..<12 {
            var moved = false
            for (peer, folder) in devices {
                let report = try peer.sync(folder)
                let unexpected = report.rejected.filter { !expected($0) }
                #expect(unexpected.isEmpty, "\(unexpected)", sourceLocation: sourceLocation)
                if report.bundlesWritten + report.bundlesRead + report.opsIngested + report.devicesAdmitted > 0 || report.vectorPublished {
                    moved = true
                }
            }
            if !moved { break }
        }
        let digest = try devices[0].peer.replica.digest()
        for (peer, _) in devices {
            try #require(try peer.replica.digest() == digest, "\(peer.name) did not converge", sourceLocation: sourceLocation)
        }
    }

    /// Three members and a device that joins by token converge through the bucket; once quiet, a
    /// sync costs one request (one listing of the group's prefix), and a new bundle costs its
    /// writer a listing and two PUTs, and each reader a listing, two GETs and the PUT of its vector.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func fourDevicesConvergeThroughTheBucketAndANoOpSyncCostsOneRequest() throws {
        let store = try Self.startStore()
        let prefix = "league-\(UUID().uuidString.prefix(8).lowercased())"
        let group = GroupMembership(
            id: GroupMembership.groupID(organizer: AuthorID(bytes: seededKeys(101).publicKey)!), secret: [UInt8](repeating: 0x60, count: 32)
        )
        let organizer = try Peer("organizer", keySeed: 101, group: group)
        let ben = try Peer("ben", keySeed: 102, start: baseTime + 10, group: nil)
        let cal = try Peer("cal", keySeed: 103, start: baseTime + 20, group: nil)
        for member in [ben, cal] { try member.replica.joinInvited(by: organizer.replica) }
        try organizer.replica.addPlayer(name: "Ann")
        try ben.replica.addPlayer(name: "Ben")
        try cal.replica.addPlayer(name: "Cal")
        var devices = try [organizer, ben, cal].map { (peer: $0, folder: try Self.folder(store, prefix)) }
        try Self.syncUntilQuiet(devices)

        // The fourth device holds only a token: it asks through the bucket, a member admits it.
        let invitation = try organizer.replica.issueInvitation(
            secret: [UInt8](repeating: 0x61, count: Invitation.secretBytes), expiresAt: baseTime + 3_600_000, uses: 1)
        let dee = try Peer("dee", keySeed: 104, start: baseTime + 30, group: nil)
        try dee.replica.accept(try Invitation(token: invitation.token))
        let deeFolder = try Self.folder(store, prefix)
        #expect(try FolderJoin(replica: dee.replica, folder: deeFolder).ask() == nil)
        #expect(try organizer.sync(devices[0].folder).devicesAdmitted == 1)
        guard case .admitted? = try FolderJoin(replica: dee.replica, folder: deeFolder).ask() else {
            Issue.record("the member's answer did not admit the device")
            return
        }
        try dee.replica.addPlayer(name: "Dee")
        devices.append((peer: dee, folder: deeFolder))
        try Self.syncUntilQuiet(devices)
        #expect(try dee.replica.players().count == 4)

        for (peer, folder) in devices {
            let quiet = try Self.sync(peer, folder)
            #expect(quiet.requests == 1, "a sync that finds nothing new costs one listing")
        }
        try ben.replica.addPlayer(name: "Eve")
        let (benBefore, calBefore) = (devices[1].folder.client.traffic, devices[2].folder.client.traffic)
        let written = try Self.sync(ben, devices[1].folder)
        #expect(written.report.bundlesWritten == 1 && written.requests == 3)
        let read = try Self.sync(cal, devices[2].folder)
        #expect(read.report.opsIngested == 1 && read.requests == 4, "\(read)")
        // By kind, as a store bills them, with the bytes of the messages: bodies and headers.
        let (benAfter, calAfter) = (devices[1].folder.client.traffic, devices[2].folder.client.traffic)
        #expect(benAfter.lists - benBefore.lists == 1 && benAfter.puts - benBefore.puts == 2 && benAfter.gets == benBefore.gets)
        #expect(calAfter.lists - calBefore.lists == 1 && calAfter.gets - calBefore.gets == 2 && calAfter.puts - calBefore.puts == 1)
        #expect(benAfter.bytesSent - benBefore.bytesSent > written.report.bytesWritten)
        #expect(calAfter.bytesReceived - calBefore.bytesReceived > read.report.bytesRead)
    }

    /// Removal with rekey through the bucket (docs/security.md, "Re-keying"): four devices, the
    /// organizer removes one; the other three learn the new key from the bucket and converge on
    /// the scores written after, while the removed device, syncing through the same bucket,
    /// learns nothing written after its removal, and may write nothing more.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func aRemovedMemberIsLockedOutAfterTheRekey() throws {
        let store = try Self.startStore()
        let prefix = "removal-\(UUID().uuidString.prefix(8).lowercased())"
        let group = GroupMembership(
            id: GroupMembership.groupID(organizer: AuthorID(bytes: seededKeys(141).publicKey)!), secret: [UInt8](repeating: 0x70, count: 32)
        )
        let organizer = try Peer("organizer", owner: "Ann", keySeed: 141, group: group)
        let members = try [("ben", "Ben"), ("cal", "Cal"), ("dee", "Dee")].enumerated().map { index, names in
            try Peer(names.0, owner: names.1, keySeed: 142 + UInt8(index), start: baseTime + 10 * UInt64(index + 1), group: nil)
        }
        for member in members { try member.replica.joinInvited(by: organizer.replica) }
        let devices = try ([organizer] + members).map { (peer: $0, folder: try Self.folder(store, prefix)) }
        try Self.syncUntilQuiet(devices)
        let round = try organizer.replica.startRound(course: "Morley Field", players: ["Ann", "Ben", "Cal", "Dee"]).id
        try organizer.replica.recordScore(round: round.lowercased, player: "Ann", hole: 1, strokes: 3)
        try Self.syncUntilQuiet(devices)
        let dee = devices[3]
        func scored(_ peer: Peer) throws -> Int {
            try #require(try peer.replica.roundView(round)).evaluation.standings.count { $0.holesPlayed > 0 }
        }
        #expect(try scored(dee.peer) == 1)

        try organizer.replica.removeMember(dee.peer.author.hex, newSecret: [UInt8](repeating: 0x71, count: 32))
        let remaining = Array(devices.prefix(3))
        // Each of the others refuses the removed device's objects, once.
        let removedObjects = { (rejection: FolderSyncReport.Rejection) in rejection.reason.contains("which was removed from the group") }
        try Self.syncUntilQuiet(remaining, expected: removedObjects)
        for (peer, _) in remaining { #expect(try peer.replica.group()?.epoch == 1, "\(peer.name) did not learn the new key") }
        try members[0].replica.recordScore(round: round.lowercased, player: "Ben", hole: 1, strokes: 2)
        try members[1].replica.recordScore(round: round.lowercased, player: "Cal", hole: 1, strokes: 4)
        try Self.syncUntilQuiet(remaining)
        #expect(try scored(organizer) == 3)

        // The removed device syncs through the same bucket: it reads the organizer's bundle up to
        // the rekey (sealed under the key it holds), and nothing after; it may no longer write.
        for _ in 0..<2 {
            let report = try dee.peer.sync(dee.folder)
            #expect(report.rejected.allSatisfy { $0.reason.contains("newer than this replica holds") }, "\(report.rejected)")
        }
        #expect(try dee.peer.replica.group()?.epoch == 0)
        #expect(try scored(dee.peer) == 1, "the removed device read scores written after its removal")
        #expect(throws: ReplicaError.removedFromGroup(through: try dee.peer.replica.versionVector()[dee.peer.author])) {
            try dee.peer.replica.addPlayer(name: "Mallory")
        }
        // The others are not disturbed by its syncs, and still agree.
        try Self.syncUntilQuiet(remaining, expected: removedObjects)
        #expect(try dee.peer.replica.digest() != organizer.replica.digest())
    }

    /// Junk that anyone with the bucket's credentials writes: an undecodable object costs one GET
    /// once, then nothing; an object over its kind's limit is refused by the listed size, never
    /// fetched, and a read bounded below an object's length is refused by its Content-Length;
    /// objects are written once, so an existing one is never overwritten; an object replaced
    /// between listing and reading is refused by its ETag.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func aHostileBucketCostsEachJunkObjectOnceAndOverwritesNothing() throws {
        let store = try Self.startStore()
        let prefix = "hostile-\(UUID().uuidString.prefix(8).lowercased())"
        let ann = try Peer("ann", keySeed: 111)
        let ben = try Peer("ben", keySeed: 112, start: baseTime + 10)
        let devices = try [ann, ben].map { (peer: $0, folder: try Self.folder(store, prefix)) }
        try ann.replica.addPlayer(name: "Ann")
        try Self.syncUntilQuiet(devices)
        let intruder = try Self.folder(store, prefix)
        let annDirectory = FolderLayout.memberDirectory(testGroup, ann.author)
        let benFolder = devices[1].folder

        // Undecodable, named like a bundle: one GET, refused, and free at the next sync.
        let junk = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try intruder.writeAtomically(annDirectory + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(junk)), junk)
        var (report, requests) = try Self.sync(ben, benFolder)
        #expect(requests == 2)
        #expect(report.rejected.count == 1 && report.bytesRefused == junk.count)
        (report, requests) = try Self.sync(ben, benFolder)
        #expect(requests == 1)
        #expect(report.rejected.isEmpty && report.bytesRead == 0)

        // Larger than any vector may be: refused by the listing's size, never fetched.
        let huge = [UInt8](repeating: 0x5a, count: FolderLayout.maximumVectorBytes + 1)
        let hugePath = annDirectory + "/" + FolderLayout.vectorName(contentHash: Blake2b.hash256(huge))
        try intruder.writeAtomically(hugePath, huge)
        (report, requests) = try Self.sync(ben, benFolder)
        #expect(requests == 1)
        #expect(report.rejected.map(\.file) == [hugePath] && report.rejected[0].reason.contains("over the limit"))
        #expect(report.bytesRead == 0)
        (report, requests) = try Self.sync(ben, benFolder)
        #expect(requests == 1)
        #expect(report.rejected.isEmpty)
        // A read bounded below the object's length stops at its Content-Length.
        #expect {
            _ = try benFolder.read(hugePath, maximumBytes: 1_024)
        } throws: { error in
            (error as? FolderError)?.reason.contains("over the limit of 1024 bytes") == true
        }

        // Written once: another writer's bytes at an existing key are refused, and the object stays.
        let bundlePath = try #require(try benFolder.list(annDirectory).first { FolderLayout.isBundleName($0.name) && $0.size != 1_000 })
        let original = try benFolder.read(annDirectory + "/" + bundlePath.name, maximumBytes: 1 << 20)
        #expect {
            try intruder.writeAtomically(annDirectory + "/" + bundlePath.name, [1, 2, 3])
        } throws: { error in
            (error as? FolderError)?.reason.contains("written once") == true
        }
        #expect(try benFolder.read(annDirectory + "/" + bundlePath.name, maximumBytes: 1 << 20) == original)
        try intruder.writeAtomically(annDirectory + "/" + bundlePath.name, original)  // the same bytes again: a retry that landed

        // Replaced between listing and reading: the read asks for the listed ETag, and is refused.
        let victim = annDirectory + "/" + bundlePath.name
        _ = try benFolder.list(annDirectory)
        try intruder.remove(victim)
        try intruder.writeAtomically(victim, [9, 9, 9])
        #expect(throws: BucketError.changed(key: "\(prefix)/\(victim)")) { _ = try benFolder.read(victim, maximumBytes: 1 << 20) }
        try intruder.remove(victim)
        try intruder.writeAtomically(victim, original)
        try Self.syncUntilQuiet(devices)
    }

    /// The store killed while a device syncs: that sync fails with one sentence (or completes,
    /// if it was quicker), nothing it reported written is lost, and once the store is back the
    /// next syncs complete and the devices converge.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func aStoreKilledMidSyncLosesNothing() throws {
        let store = try Self.startStore()
        let prefix = "killed-\(UUID().uuidString.prefix(8).lowercased())"
        let ann = try Peer("ann", keySeed: 131)
        let ben = try Peer("ben", keySeed: 132, start: baseTime + 10)
        let devices = try [ann, ben].map { (peer: $0, folder: try Self.folder(store, prefix)) }
        try ann.replica.addPlayer(name: "Ann")
        try Self.syncUntilQuiet(devices)

        for name in ["Kim", "Lou", "Max"] { try ann.replica.addPlayer(name: name) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { store.kill() }
        do {
            try ann.sync(devices[0].folder)
        } catch let error as BucketError {
            #expect(error.description.hasPrefix("the bucket could not be reached ("), "\(error)")
        }
        store.kill()
        #expect(throws: BucketError.self) { try ben.sync(devices[1].folder) }
        #expect(try ann.replica.players().count == 4)

        try store.restart()
        // Back: it lists, and reads every object (a loaded machine's restarted store answers
        // 500 for a while after it lists).
        let client = devices[1].folder.client
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let readable = try? client.list(prefix: prefix + "/").wait().objects.allSatisfy { object in
                (try? client.get(key: object.key, maximumBytes: 1 << 20).wait()) != nil
            }
            if readable == true { break }
            Thread.sleep(forTimeInterval: 0.25)
        }
        try Self.syncUntilQuiet(devices)
        #expect(try ben.replica.players().count == 4)
    }

    /// Wrong credentials: the store answers 403, and the sync stops with one sentence saying what to check.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func wrongCredentialsSayWhatToCheck() throws {
        let store = try Self.startStore()
        let ann = try Peer("ann", keySeed: 121)
        let folder = try Self.folder(store, "denied", secret: "not-the-secret")
        #expect(throws: BucketError.accessDenied(bucket: SeaweedFS.bucket)) { try ann.sync(folder) }
        #expect(
            BucketError.accessDenied(bucket: SeaweedFS.bucket).description
                == "the bucket hyzer-tests refused these credentials (403): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                + "(or the profile) and that they may list, read, write and delete in the bucket")
        #expect(folder.client.requestsSent == 1, "a refusal is not retried")
    }
}
