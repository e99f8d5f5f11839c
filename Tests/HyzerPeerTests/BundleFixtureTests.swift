import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

/// Bundles written by earlier versions stay readable: the fixtures in `Tests/Fixtures/` are
/// checked in once and read back by every later version (never regenerate one in place; add a
/// new fixture for a new format version).
@Suite struct BundleFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let group = GroupMembership(
        id: UUID(uuidString: "0f1e2d3c-4b5a-8697-a8b9-cadbecfd0e1f")!, secret: Array(repeating: 0x42, count: 32))

    /// A clock that stands still at a fixed instant, so the fixture's ops are reproducible.
    struct FixedClock: WallClock {
        func nowMilliseconds() -> UInt64 { 1_700_000_000_000 }
    }

    /// The replica the v1 fixture was exported from: a round with a correction and a guest.
    static func makeFixtureReplica(at directory: URL) throws -> Replica {
        let replica = try Replica.create(
            at: directory, name: "fixture-phone", kind: .phone, owner: "Ann", clock: FixedClock(),
            keys: SigningKeyPair(seed: Array(repeating: 0x11, count: 32)))
        try replica.join(group)
        try replica.addPlayer(name: "Ben")
        let round = try replica.startRound(course: "Maple Hill", players: ["Ann", "Ben"], guests: ["Gus"])
        let first = try replica.recordScore(round: round.id.lowercased, player: "Ann", hole: 1, strokes: 4)
        try replica.recordScore(round: round.id.lowercased, player: "Gus", hole: 1, strokes: 3)
        try replica.correct(event: first.id.lowercased, strokes: 3)
        return replica
    }

    @Test func version1BundleIsStillRead() throws {
        let file = Self.fixtures.appendingPathComponent("bundle-v1.hzb")
        let directory = TemporaryDirectory("fixture")
        if ProcessInfo.processInfo.environment["HYZER_WRITE_FIXTURES"] == "1" {
            let source = try Self.makeFixtureReplica(at: directory.path("source"))
            try Data(try BundleFiles.export(source)).write(to: file)
        }
        let bytes = try Array(Data(contentsOf: file))
        let reader = try Replica.create(at: directory.path("reader"), name: "reader", kind: .laptop)
        try reader.join(Self.group)
        let report = try BundleFiles.import(bytes, into: reader)
        #expect(report.rejected.isEmpty)
        #expect(report.opsApplied == 7)
        let round = try #require(try reader.rounds().first)
        #expect(round.round.courseName == "Maple Hill")
        #expect(round.round.participants.map(\.name) == ["Ann", "Ben", "Gus"])
        #expect(round.evaluation.standings.map(\.formatted) == ["E", "E", "E"])
        #expect(round.evaluation.standings.map(\.name) == ["Ann", "Gus", "Ben"])
        // The same ops from the same keys and clock: a rebuilt source holds the same digest.
        let source = try Self.makeFixtureReplica(at: directory.path("again"))
        let sourceAuthor = source.author
        #expect(try reader.versionVector()[sourceAuthor] == 7)
        #expect(Hex.encode(Blake2b.hash256(bytes)) == Hex.encode(Blake2b.hash256(try BundleFiles.export(source))),
            "the v1 encoding of these ops changed: that is a new format version, not an edit")
    }
}
