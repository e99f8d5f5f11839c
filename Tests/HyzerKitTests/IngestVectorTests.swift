import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// The vector an ingest reads on the writer's connection after its last commit
/// (`Replica.ingestReadingVector`, docs/sync-protocol.md, "Live changes across processes") is
/// what a read after the ingest finds, on this opening of the store and on another, whatever the
/// ingest did with its segments, and whatever else wrote the store since the last ingest: the
/// writer reads again only the authors whose rows changed (`WriterVector`).
@Suite struct IngestVectorTests {
    @Test func theVectorReadInTheIngestIsWhatAReadAfterItFinds() throws {
        let ann = try TestReplica("vector-ann", owner: "Ann", keySeed: 31)
        let ben = try TestReplica("vector-ben", owner: "Ben", keySeed: 32)
        let ahead = try TestReplica("vector-ahead", owner: "Cat", keySeed: 33, start: baseTime + 3_600_000)
        let reader = try TestReplica("vector-reader", owner: "Dan", keySeed: 34)
        let other = try Replica.open(at: reader.replica.directory, clock: reader.clock)
        defer { try? other.close() }

        for index in 0..<3 { _ = try ann.replica.addPlayer(name: "Ann's \(index)") }
        _ = try ben.replica.addPlayer(name: "Ben's first")
        let benFirst = try ben.replica.delta(above: VersionVector())
        let benAfterFirst = try ben.replica.versionVector()
        for index in 0..<3 { _ = try ben.replica.addPlayer(name: "Ben's \(index)") }
        let benLater = try ben.replica.delta(above: benAfterFirst)
        _ = try ahead.replica.addPlayer(name: "Cat's")

        @discardableResult
        func ingest(_ segments: [AuthorSegment]) throws -> IngestReport {
            let (report, vector) = try reader.replica.ingestReadingVector(segments)
            #expect(report.rejected.isEmpty)
            #expect(vector == (try reader.replica.versionVector()))
            #expect(vector == (try other.versionVector()))
            return report
        }

        // Ben's later ops wait above the gap; Cat's are stamped an hour ahead and are held.
        let aside = try ingest(benLater + ahead.replica.delta(above: VersionVector()))
        #expect(aside.segmentsPending >= 1 && aside.segmentsHeld == 1)
        #expect(try reader.replica.versionVector()[ben.author] == 0)
        // Ann's ops, and Ben's first, which releases his later ones.
        try ingest(ann.replica.delta(above: VersionVector()) + benFirst)
        #expect(try reader.replica.versionVector()[ben.author] == ben.replica.versionVector()[ben.author])
        #expect(try reader.replica.versionVector()[ann.author] == ann.replica.versionVector()[ann.author])
        // Nothing to ingest once Cat's time has come: the ingest's write releases Cat's ops.
        reader.clock.set(baseTime + 7_200_000)
        try ingest([])
        #expect(try reader.replica.versionVector()[ahead.author] == ahead.replica.versionVector()[ahead.author])
    }

    /// Ingests, commands on the same opening, writes through another opening (another
    /// process's), a fork and ops set aside, in a random order: after every ingest its vector is
    /// what a fresh read finds.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theVectorAnIngestReadsFollowsEveryWriteBetweenIngests(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let reader = try TestReplica("kept-reader", owner: "Ann", keySeed: 40)
        let other = try Replica.open(at: reader.replica.directory, clock: reader.clock)
        defer { try? other.close() }
        let sources = try (0..<4).map { try TestReplica("kept-\($0)", owner: "P\($0)", keySeed: UInt8(41 + $0)) }
        // Two devices with one key: their first ops differ, and together they prove a fork.
        let twins = try ["kept-twin-a", "kept-twin-b"].map { try TestReplica($0, keySeed: 50) }
        var ingests = 0
        for step in 0..<150 {
            switch random.below(6) {
            case 0:
                _ = try random.pick(sources).replica.addPlayer(name: "S\(step)")
            case 1:
                _ = try reader.replica.addPlayer(name: "R\(step)")
            case 2:
                _ = try other.addPlayer(name: "O\(step)")
            default:
                // All of a source's ops or only its latest (a gap: set aside until filled), or a twin's.
                let source = random.chance(15) ? random.pick(twins) : random.pick(sources)
                var segments = try source.replica.delta(above: VersionVector())
                if random.chance(30), let last = segments.last { segments = [last] }
                let (_, vector) = try reader.replica.ingestReadingVector(segments)
                ingests += 1
                #expect(vector == (try other.versionVector()), "seed \(seed), step \(step)")
                guard vector == (try other.versionVector()) else { return }
            }
        }
        #expect(ingests > 50)
        #expect(try other.versionVector().entry(twins[0].author)?.frozenAt != nil, "the fork was seen")
    }
}
