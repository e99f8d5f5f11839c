import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

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

    /// Reads `bundle-v<version>.hzb` (written by `HYZER_WRITE_FIXTURES=1` for the current version only).
    func checkFixture(version: UInt8) throws {
        let file = Self.fixtures.appendingPathComponent("bundle-v\(version).hzb")
        let directory = TemporaryDirectory("fixture")
        if ProcessInfo.processInfo.environment["HYZER_WRITE_FIXTURES"] == "1", version == HyzerSync.Bundle.formatVersion {
            let source = try Self.makeFixtureReplica(at: directory.path("source"))
            try Data(try BundleFiles.export(source)).write(to: file)
        }
        let bytes = try Array(Data(contentsOf: file))
        #expect(bytes.count > 5)
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
        // The same ops from the same keys and clock: a rebuilt source exports the same segments.
        let source = try Self.makeFixtureReplica(at: directory.path("again"))
        #expect(try reader.versionVector()[source.author] == 7)
        let fresh = try BundleFiles.export(source)
        let old = try HyzerSync.Bundle(decoding: SealedFile.open(bytes, group: Self.group).bundle, expectedGroup: Self.group.id)
        let new = try HyzerSync.Bundle(decoding: SealedFile.open(fresh, group: Self.group).bundle, expectedGroup: Self.group.id)
        #expect(old.segments == new.segments, "the encoding of these ops changed: that is a new format version, not an edit")
        #expect(old.senderVector.heads == new.senderVector.heads)
        if version == HyzerSync.Bundle.formatVersion {
            #expect(
                Hex.encode(Blake2b.hash256(bytes)) == Hex.encode(Blake2b.hash256(fresh)),
                "the v\(version) encoding changed: that is a new format version, not an edit")
        }
    }

    @Test func version1BundleIsStillRead() throws {
        try checkFixture(version: 1)
    }

    /// Version 2: vector entries carry head-hash prefixes and fork points.
    @Test func version2BundleIsStillRead() throws {
        try checkFixture(version: 2)
    }
}
