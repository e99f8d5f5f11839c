import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// The delta bundle (Foundation has a `Bundle` too).
typealias DeltaBundle = HyzerSync.Bundle

// MARK: Determinism

/// 2024-06-01T00:00:00Z: a plausible "now" for tests.
let baseTime: UInt64 = 1_717_200_000_000

/// The deterministic key pair number `n`.
func seededKeys(_ n: UInt8) -> SigningKeyPair {
    SigningKeyPair(seed: [UInt8](repeating: n, count: SigningKeyPair.seedBytes))
}

/// The group the tests' replicas share, and another one that they do not belong to.
let testGroup = GroupMembership(
    id: UUID(uuidString: "0b6f1e52-7a4c-8d11-9a3e-5c0f00000001")!, secret: [UInt8](repeating: 0x42, count: GroupMembership.secretBytes))
let otherGroup = GroupMembership(
    id: UUID(uuidString: "0b6f1e52-7a4c-8d11-9a3e-5c0f00000002")!, secret: [UInt8](repeating: 0x43, count: GroupMembership.secretBytes))

// MARK: Replicas

/// One replica of a test, in its own temporary directory, with known keys and clock. Keep the
/// value alive while the replica is used: its directory is removed when it dies.
final class Peer: Sendable {
    let directory: TemporaryDirectory
    let replica: Replica
    let keys: SigningKeyPair
    let clock: TestClock
    let name: String

    var author: AuthorID { replica.author }

    init(
        _ name: String, kind: DeviceKind = .phone, owner: String? = nil, keySeed: UInt8, start: UInt64 = baseTime,
        group: GroupMembership? = testGroup
    ) throws {
        self.name = name
        directory = TemporaryDirectory("hyzer-sync-\(name)")
        clock = TestClock(start: start)
        keys = seededKeys(keySeed)
        replica = try Replica.create(
            at: directory.path("store"), name: name, kind: kind, owner: owner, clock: clock, keys: keys)
        if let group { try replica.join(group) }
    }

    /// This replica's export (every op it holds, sealed for its group), as `hyzer-peer export` writes it.
    func export() throws -> [UInt8] {
        try BundleFiles.export(replica)
    }

    /// A sealed bundle with this replica as sender, signed by it, carrying `segments`.
    func sealedBundle(_ segments: [AuthorSegment], group: GroupMembership = testGroup) throws -> [UInt8] {
        let bundle = DeltaBundle(groupID: group.id, sender: author, senderVector: try replica.versionVector(), segments: segments)
        return SealedFile.seal(bundle.encoded(signedBy: replica.signature(of:)), group: group)
    }

    /// The ops of `author` that this replica holds above `sequence`, as one segment.
    func segment(of author: AuthorID, above sequence: UInt64 = 0) throws -> AuthorSegment {
        try #require(try replica.delta(above: VersionVector([author: sequence])).first { $0.author == author })
    }

    /// The hash of this replica's own head op.
    func headHash() throws -> [UInt8] {
        try #require(try segment(of: author).verifiedOps().last).hash
    }

    /// Appends a raw op to this replica's own log, bypassing every command's validation, as a
    /// hostile or buggy build of hyzer-peer could.
    @discardableResult
    func appendRaw(_ payload: OpPayload, at milliseconds: UInt64) throws -> SignedOp {
        let head = try replica.versionVector()[author]
        let op = SignedOp(
            keys: keys, author: author, sequence: head + 1, previousHash: try headHash(),
            clock: HLCTimestamp(physicalMilliseconds: milliseconds), payload: payload)
        let report = try replica.ingest([AuthorSegment(ops: [op])])
        try #require(report.opsApplied == 1 && report.rejected.isEmpty, "the raw op continues the log: \(report)")
        return op
    }
}

/// What a refused bundle must leave untouched: the op set, what waits above gaps, the known
/// forks and every view.
struct StoreState: Equatable, CustomStringConvertible {
    let digest: String
    let vector: VersionVector
    let opCount: Int
    let pendingOps: Int
    let forks: [String]
    let players: [String]
    let devices: [String]
    let courses: [String]
    let rounds: [RoundEvaluation]
    let ownership: Ownership

    init(_ replica: Replica) throws {
        let status = try replica.status()
        digest = status.digest
        vector = status.versionVector
        opCount = status.opCount
        pendingOps = status.pendingOps
        forks = status.forks.map { "\($0.author.hex)@\($0.sequence)" }
        players = try replica.players().map { "\($0.id.lowercased)=\($0.displayName)" }
        devices = try replica.devices().map { "\($0.id.hex)=\($0.name)" }
        courses = try replica.courses(includingDeleted: true).map { "\($0.id.lowercased)=\($0.name)\($0.pars)\($0.deleted)" }
        rounds = try replica.rounds().map(\.evaluation)
        ownership = try replica.ownership()
    }

    var description: String { "digest \(digest.prefix(12)), \(opCount) ops, \(pendingOps) pending, forks \(forks)" }
}

// MARK: Shared folders

/// A shared folder in a fresh temporary directory.
final class SharedDirectory: Sendable {
    let directory: TemporaryDirectory
    let folder: DirectoryFolder

    init() {
        directory = TemporaryDirectory("hyzer-sync-folder")
        folder = DirectoryFolder(root: directory.url)
    }

    var root: URL { folder.root }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// `hyzer/<group>/<author>`.
    func memberDirectory(_ author: AuthorID, group: GroupMembership = testGroup) -> String {
        FolderLayout.memberDirectory(group, author)
    }

    var groupDirectory: String { FolderLayout.groupDirectory(testGroup) }

    /// Writes `bytes` at `path`, creating the directories above it.
    func put(_ bytes: [UInt8], at path: String) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url(path))
    }

    /// Writes a sealed bundle into `member`'s directory under its content-hash name; its path.
    @discardableResult
    func plant(_ sealed: [UInt8], member: AuthorID) throws -> String {
        let path = memberDirectory(member) + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        try put(sealed, at: path)
        return path
    }

    /// Sets the modification time of `path`.
    func touch(_ path: String, at date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url(path).path)
    }

    func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(path)))
    }

    /// Every regular file under the folder, as sorted relative paths.
    func files() -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var paths: [String] = []
        for case let file as URL in enumerator {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            paths.append(String(file.standardizedFileURL.path.dropFirst(root.path.count + 1)))
        }
        return paths.sorted()
    }

    /// The bundle files in `member`'s directory, as paths.
    func bundles(of member: AuthorID) -> [String] {
        let directory = memberDirectory(member)
        return files().filter { $0.hasPrefix(directory + "/") && $0.hasSuffix(".hzb") }
    }
}

extension Peer {
    @discardableResult
    func sync(_ folder: any SharedFolder) throws -> FolderSyncReport {
        try FolderSync(replica: replica, folder: folder).run()
    }

    @discardableResult
    func sync(_ shared: SharedDirectory) throws -> FolderSyncReport {
        try sync(shared.folder)
    }

    /// What this replica remembers about `folder`.
    func syncRecords(_ folder: any SharedFolder) throws -> [String: [UInt8]] {
        try replica.syncRecords("folder:" + folder.identity)
    }
}

/// Syncs every peer through `shared` round after round (in `order`'s order, if given) until a
/// whole round moves nothing, then checks that every replica holds the same ops.
func syncUntilQuiet(
    _ peers: [Peer], _ shared: SharedDirectory, rng: inout SplitMix64, expectClean: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for _ in 0..<12 {
        var moved = false
        for peer in rng.shuffled(peers) {
            let report = try peer.sync(shared)
            if expectClean { #expect(report.rejected.isEmpty, "\(report.rejected)", sourceLocation: sourceLocation) }
            if report.bundlesWritten + report.bundlesRead + report.bundlesRetired + report.bundlesDeleted + report.opsIngested > 0
                || report.vectorPublished
            {
                moved = true
            }
        }
        if !moved { break }
    }
    let digest = try peers[0].replica.digest()
    for peer in peers {
        try #require(try peer.replica.digest() == digest, "\(peer.name) did not converge", sourceLocation: sourceLocation)
    }
}

func syncUntilQuiet(
    _ peers: [Peer], _ shared: SharedDirectory, expectClean: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    var rng = SplitMix64(seed: 0x5eed)
    try syncUntilQuiet(peers, shared, rng: &rng, expectClean: expectClean, sourceLocation: sourceLocation)
}

/// Moves every peer's wall clock past the folder's grace period: the files they retired go at
/// their next sync.
func passGracePeriod(_ peers: [Peer]) {
    for peer in peers { peer.clock.set(peer.clock.nowMilliseconds() + FolderLayout.gracePeriodMilliseconds) }
}

/// Syncs until quiet, lets the grace period pass, and syncs until quiet again: every file a
/// peer retired is gone, and the folder holds only what someone still needs.
func settle(_ peers: [Peer], _ shared: SharedDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try syncUntilQuiet(peers, shared, sourceLocation: sourceLocation)
    passGracePeriod(peers)
    try syncUntilQuiet(peers, shared, sourceLocation: sourceLocation)
}

/// Whether `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
    }
    return false
}
