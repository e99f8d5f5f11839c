import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// A real directory that counts the bytes read from each file, so a test can tell what junk
/// cost without timing anything.
final class CountingFolder: SharedFolder, @unchecked Sendable {
    let base: DirectoryFolder
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    init(_ base: DirectoryFolder) { self.base = base }

    var identity: String { base.identity }
    func list(_ directory: String) throws -> [FolderEntry] { try base.list(directory) }
    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let bytes = try base.read(path, maximumBytes: maximumBytes)
        lock.lock()
        defer { lock.unlock() }
        counts[path, default: 0] += bytes.count
        return bytes
    }
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws { try base.writeAtomically(path, bytes) }
    func remove(_ path: String) throws { try base.remove(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }

    /// The bytes read so far from files whose path starts with `prefix`.
    func bytesRead(under prefix: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }
}

/// docs/security.md, "Shared folder and files on disk": junk that anyone with the folder can
/// write costs a bounded, one-time price. Failed join requests and sealed files are remembered
/// by name, size and modification time and not read again; a sealed file under an epoch nobody
/// holds is set aside once, not read on every sync; one sync reads a bounded number of bytes of
/// files it refuses; a real join request is found whatever else lies in `joins/`.
@Suite struct FolderJunkTests {
    static let organizerSeed: UInt8 = 121
    let group = GroupMembership(
        id: GroupMembership.groupID(organizer: AuthorID(bytes: seededKeys(organizerSeed).publicKey)!),
        secret: [UInt8](repeating: 0x72, count: GroupMembership.secretBytes))

    /// 64 junk requests (and 200) named to be decided before the real one: requests for
    /// invitations nobody issued, requests for the real invitation with a forged proof, and
    /// noise of a request's size. The device is admitted on the first sync, and the junk is not read
    /// again by the syncs after it.
    @Test(arguments: [64, 200])
    func junkInJoinsDoesNotHoldBackTheRealRequest(junk: Int) throws {
        let organizer = try Peer("organizer", keySeed: Self.organizerSeed, group: group)
        let invitation = try organizer.replica.issueInvitation(
            secret: [UInt8](repeating: 0x73, count: Invitation.secretBytes), expiresAt: baseTime + 3_600_000, uses: 1)
        let newcomer = try Peer("newcomer", keySeed: 122, group: nil)
        try newcomer.replica.accept(try Invitation(token: invitation.token))
        let shared = SharedDirectory()
        #expect(try FolderJoin(replica: newcomer.replica, folder: shared.folder).ask() == nil)
        let joins = FolderJoin.directory(group.id)
        var rng = SplitMix64(seed: 0x10c)
        for index in 0..<junk {
            let name = String(format: "%016x", index) + String(repeating: "0", count: 48)
            let device = try #require(AuthorID(hex: name))
            let bytes: [UInt8]
            switch index % 3 {
            case 0:
                let nobodys = Invitation(groupID: group.id, secret: (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
                bytes = JoinRequest(invitation: nobodys, device: device).bytes
            case 1:
                // The real invitation's layout, its proof and tag forged.
                let real = JoinRequest(invitation: invitation, device: device).bytes
                bytes = Array(real.prefix(68)) + [UInt8](repeating: 0, count: JoinRequest.byteCount - 68)
            default:
                bytes = (0..<JoinRequest.byteCount).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
            #expect(bytes.count == JoinRequest.byteCount)
            try shared.folder.writeAtomically(joins + "/" + name + ".hzj", bytes)
        }
        #expect(newcomer.author.hex > String(format: "%016x", junk), "the junk sorts before the real request")

        let counting = CountingFolder(shared.folder)
        let first = try FolderSync(replica: organizer.replica, folder: counting).run()
        #expect(first.devicesAdmitted == 1)
        let reply = try FolderJoin(replica: newcomer.replica, folder: shared.folder).ask()
        guard case .admitted? = reply else {
            Issue.record("not admitted: \(String(describing: reply))")
            return
        }
        #expect(try newcomer.replica.group()?.id == group.id)
        // The junk costs its one read: the syncs after it read none of it.
        let read = counting.bytesRead(under: joins)
        #expect(read <= (junk + 1) * JoinRequest.byteCount)
        for _ in 0..<3 {
            let report = try FolderSync(replica: organizer.replica, folder: counting).run()
            #expect(report.rejected.isEmpty, "refused once, not reported again: \(report.rejected)")
        }
        #expect(counting.bytesRead(under: joins) == read)
    }

    /// A file named like a bundle (its name is its hash, as anyone can make it) with a forged
    /// header: "sealed under an epoch nobody holds". It is read once and set aside, not read on
    /// every sync; a 128 MiB one is refused by its size without a byte read.
    @Test func aForgedUnknownEpochIsReadOnceAcrossManySyncs() throws {
        let shared = SharedDirectory()
        let ann = try Peer("ann", keySeed: 123)
        let ben = try Peer("ben", keySeed: 124)
        try syncUntilQuiet([ann, ben], shared)
        let header = Array("HYZS".utf8) + [2] + testGroup.id.bytes + [0xff, 0xff, 0xff, 0x00]
        var forged = header + [UInt8](repeating: 0x5a, count: 60 << 20)
        let near = try shared.plant(forged, member: ben.author)
        forged = header + [UInt8](repeating: 0x5b, count: 128 << 20)
        let huge = try shared.plant(forged, member: ben.author)
        forged = []

        let counting = CountingFolder(shared.folder)
        let first = try ann.sync(counting)
        #expect(first.rejected.contains { $0.file == near && $0.reason.contains("group key 4294967040") })
        #expect(first.rejected.contains { $0.file == huge && $0.reason.contains("over the limit") })
        #expect(counting.bytesRead(under: near) == header.count + 60 << 20)
        #expect(counting.bytesRead(under: huge) == 0)
        for _ in 0..<5 {
            let report = try ann.sync(counting)
            #expect(report.rejected.isEmpty, "set aside once, not reported again: \(report.rejected)")
            #expect(report.bytesRead == 0)
        }
        #expect(counting.bytesRead(under: near) == header.count + 60 << 20, "read once across six syncs")
        #expect(counting.bytesRead(under: huge) == 0)
        // A file that changes is a new file: read once more.
        try shared.touch(near, at: Date(timeIntervalSince1970: 1_800_000_000))
        try ann.sync(counting)
        #expect(counting.bytesRead(under: near) == 2 * (header.count + 60 << 20))
    }

    /// Junk bundles that fail their checks cost at most `FolderLayout.refusedBytesPerSyncMax`
    /// in one sync; the rest wait for the next, and each is read once in all.
    @Test func oneSyncReadsABoundedNumberOfBytesOfRefusedFiles() throws {
        let shared = SharedDirectory()
        let ann = try Peer("ann", keySeed: 125)
        let ben = try Peer("ben", keySeed: 126)
        try syncUntilQuiet([ann, ben], shared)
        var planted: [String] = []
        for fill: UInt8 in 1...3 {
            // Sealed under the group's epoch 0 header, but not by anyone holding its key.
            let junk = Array("HYZS".utf8) + [1] + testGroup.id.bytes + [UInt8](repeating: fill, count: 30 << 20)
            planted.append(try shared.plant(junk, member: ben.author))
        }
        let counting = CountingFolder(shared.folder)
        var refused: [Int] = []
        for _ in 0..<3 {
            let report = try ann.sync(counting)
            #expect(report.bytesRefused <= FolderLayout.refusedBytesPerSyncMax)
            refused.append(report.bytesRefused)
        }
        let each = 4 + 1 + 16 + 30 << 20
        #expect(refused == [2 * each, each, 0])
        for path in planted { #expect(counting.bytesRead(under: path) == each, "\(path) is read once") }
        // Ben's own bundles still arrive.
        try ben.replica.addCourse(name: "After the junk", pars: [3, 3, 3])
        try ben.sync(shared)
        #expect(try ann.sync(counting).opsIngested == 1)
    }

    /// Every header field of a sealed file is authenticated (associated data of the AEAD): a
    /// file sealed under epoch 1 with any byte of its version, group or epoch changed does not
    /// open.
    @Test func everyHeaderFieldIsAuthenticated() throws {
        let group = GroupMembership(id: testGroup.id, secret: [UInt8](repeating: 0x44, count: GroupMembership.secretBytes), epoch: 1)
        let sealed = SealedFile.seal(Array("a bundle".utf8), group: group, epoch: 1)
        #expect(try SealedFile.open(sealed, group: group).epoch == 1)
        for index in 4..<SealedFile.headerBytes(version: 2) {
            for bit in 0..<8 {
                var changed = sealed
                changed[index] ^= 1 << bit
                #expect(throws: BundleError.self, "byte \(index) bit \(bit)") { _ = try SealedFile.open(changed, group: group) }
            }
        }
    }
}
