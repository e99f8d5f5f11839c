import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// A clock that always reads the same instant.
struct FixedClock: WallClock {
    let milliseconds: UInt64
    func nowMilliseconds() -> UInt64 { milliseconds }
}

/// 2024-06-01T00:00:00Z: a plausible "now" for tests.
let baseTime: UInt64 = 1_717_200_000_000

/// The deterministic key pair number `n`.
func seededKeys(_ n: UInt8) -> SigningKeyPair {
    SigningKeyPair(seed: [UInt8](repeating: n, count: SigningKeyPair.seedBytes))
}

/// One replica of a test, with its own temporary directory, clock and keys. Keep the value
/// alive as long as the replica is used: the directory is removed when it dies.
final class TestReplica: Sendable {
    let directory: TemporaryDirectory
    let replica: Replica
    let clock: TestClock
    let keys: SigningKeyPair

    var author: AuthorID { replica.author }

    init(
        _ name: String, kind: DeviceKind = .phone, owner: String? = nil, keySeed: UInt8,
        start: UInt64 = baseTime
    ) throws {
        directory = TemporaryDirectory("hyzer-kit-\(name)")
        clock = TestClock(start: start)
        keys = seededKeys(keySeed)
        replica = try Replica.create(
            at: directory.path("store"), name: name, kind: kind, owner: owner, clock: clock, keys: keys)
    }

    /// Opens a copy of the closed store at `store` in a fresh directory: the same replica,
    /// state and key, for a test that must not disturb the original.
    init(copying store: URL, keys: SigningKeyPair, start: UInt64) throws {
        directory = TemporaryDirectory("hyzer-kit-copy")
        try FileManager.default.copyItem(at: store, to: directory.path("store"))
        clock = TestClock(start: start)
        self.keys = keys
        replica = try Replica.open(at: directory.path("store"), clock: clock)
    }
}

/// A closed store to copy from: build a scenario once, then give every test case its own copy.
struct StoreTemplate: Sendable {
    let store: URL
    let keys: SigningKeyPair
    let start: UInt64

    /// Closes `test`'s replica; keep `test` alive for as long as the template is used.
    init(closing test: TestReplica, start: UInt64) throws {
        try test.replica.close()
        store = test.replica.directory
        keys = test.keys
        self.start = start
    }

    func copy() throws -> TestReplica {
        try TestReplica(copying: store, keys: keys, start: start)
    }
}

extension Replica {
    /// Pulls everything `other` holds that this replica lacks.
    @discardableResult
    func pull(from other: Replica) throws -> IngestReport {
        try ingest(other.delta(above: versionVector()))
    }

    /// The hash of this replica's head op, for building raw ops that continue its log.
    func headHash() throws -> [UInt8] {
        let segment = try #require(delta(above: VersionVector()).first { $0.author == author })
        return try segment.verifiedOps().last!.hash
    }
}

/// Two rounds of pulls between every pair: after the first, the last replica holds the union;
/// after the second, everyone does. No segment may be refused on the way.
func syncAll(_ replicas: [Replica], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for _ in 0..<2 {
        for target in replicas {
            for source in replicas where source !== target {
                let report = try target.pull(from: source)
                #expect(report.rejected == [], sourceLocation: sourceLocation)
            }
        }
    }
}

func syncAll(_ replicas: [TestReplica], sourceLocation: SourceLocation = #_sourceLocation) throws {
    try syncAll(replicas.map(\.replica), sourceLocation: sourceLocation)
}

/// Builds a raw signed op of `keys` at `sequence` on `previousHash`, as a hostile or buggy
/// peer could, bypassing every command's validation.
func rawOp(
    keys: SigningKeyPair, sequence: UInt64, previousHash: [UInt8], clock: HLCTimestamp, payload: OpPayload
) -> SignedOp {
    SignedOp(
        keys: keys, author: AuthorID(bytes: keys.publicKey)!, sequence: sequence, previousHash: previousHash,
        clock: clock, payload: payload)
}

/// Appends a raw op to `replica`'s own log by ingesting it into the replica itself: the op
/// continues the log exactly as a command would, but no command validates it.
@discardableResult
func appendRaw(_ payload: OpPayload, to test: TestReplica, clock: HLCTimestamp) throws -> SignedOp {
    let head = try test.replica.versionVector()[test.author]
    let op = rawOp(keys: test.keys, sequence: head + 1, previousHash: try test.replica.headHash(), clock: clock, payload: payload)
    let report = try test.replica.ingest([AuthorSegment(ops: [op])])
    try #require(report.opsApplied == 1 && report.rejected.isEmpty, "the raw op continues the log: \(report)")
    return op
}

// MARK: Whole-state snapshots

/// Everything a replica shows, encoded canonically, so that two replicas can be compared
/// byte for byte.
struct Snapshot: Equatable, CustomStringConvertible {
    let digest: String
    let versionVector: VersionVector
    let views: String

    var description: String { "digest \(digest.prefix(16)), \(versionVector.heads.count) authors\n\(views)" }
}

private struct PlayerDump: Encodable {
    let id: String
    let name: String
    let createdBy: String
}

private struct CourseDump: Encodable {
    let id: String
    let name: String
    let pars: [Int]
    let seeded: Bool
    let deleted: Bool
}

private struct DeviceDump: Encodable {
    let id: String
    let name: String
    let kind: DeviceKind
}

private struct RoundDump: Encodable {
    let id: String
    let course: String
    let organizer: ParticipantID
    let participants: [String]
    let pars: [Int]
    let status: RoundStatus
    let standings: [StandingsEntry]
    let breakdowns: [Breakdown]
    let discrepancies: [Discrepancy]
    let ignoredEvents: [String]
}

private struct ViewsDump: Encodable {
    let players: [PlayerDump]
    let courses: [CourseDump]
    let devices: [DeviceDump]
    let rounds: [RoundDump]
    let history: [HistoryEntry]
}

/// `value` as JSON with sorted keys: the canonical text two replicas must agree on.
func canonicalJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

func roundsJSON(_ replica: Replica) throws -> String {
    try canonicalJSON(replica.rounds().map(RoundDump.init))
}

private struct ScoringDump: Encodable {
    let status: RoundStatus
    let standings: [StandingsEntry]
    let breakdowns: [Breakdown]
    let discrepancies: [Discrepancy]
}

/// What players see of every round: status, standings, breakdowns and discrepancies.
func scoringJSON(_ replica: Replica) throws -> String {
    try canonicalJSON(
        replica.rounds().map { view in
            let dump = RoundDump(view)
            return ScoringDump(
                status: dump.status, standings: dump.standings, breakdowns: dump.breakdowns, discrepancies: dump.discrepancies)
        })
}

extension RoundDump {
    init(_ view: RoundView) {
        let evaluation = view.evaluation
        id = view.round.id.lowercased
        course = view.round.courseName
        organizer = view.round.organizerID
        participants = view.round.participants.map { "\($0.id)=\($0.name)" }
        pars = view.round.pars
        status = evaluation.status
        standings = evaluation.standings
        breakdowns = evaluation.participants.compactMap { evaluation.breakdown(player: $0.id) }
        discrepancies = evaluation.discrepancies
        ignoredEvents = evaluation.ignoredEvents.map { "\($0.event.id.lowercased): \($0.reason)" }
    }
}

func snapshot(_ replica: Replica) throws -> Snapshot {
    let views = ViewsDump(
        players: try replica.players().map { PlayerDump(id: $0.id.lowercased, name: $0.displayName, createdBy: $0.createdBy.hex) },
        courses: try replica.courses(includingDeleted: true).map {
            CourseDump(id: $0.id.lowercased, name: $0.name, pars: $0.pars, seeded: $0.isSeeded, deleted: $0.deleted)
        },
        devices: try replica.devices().map { DeviceDump(id: $0.id.hex, name: $0.name, kind: $0.kind) },
        rounds: try replica.rounds().map(RoundDump.init),
        history: try replica.history(includingStandings: true))
    let status = try replica.status()
    return Snapshot(digest: status.digest, versionVector: status.versionVector, views: try canonicalJSON(views))
}

/// What a refused command must leave untouched.
struct Fingerprint: Equatable {
    let digest: String
    let opCount: Int
    let views: String

    init(_ replica: Replica) throws {
        digest = try replica.digest()
        opCount = try replica.status().opCount
        views = try snapshot(replica).views
    }
}
