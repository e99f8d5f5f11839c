import Foundation
import HyzerDomain
import HyzerKit
import Testing

/// docs/replication.md, "Version vectors and deltas": a vector maps each author to the highest
/// contiguous sequence held; a delta is every op above a peer's vector.
@Suite struct DeltaTests {
    @Test func aVectorIgnoresZeroes() {
        let author = AuthorID(bytes: seededKeys(85).publicKey)!
        var vector = VersionVector([author: 0])
        #expect(vector.heads.isEmpty)
        vector[author] = 3
        #expect(vector[author] == 3)
        vector[author] = 0
        #expect(vector == VersionVector())
        #expect(VersionVector([author: 3]).covers(VersionVector([author: 2])))
        #expect(!VersionVector([author: 2]).covers(VersionVector([author: 3])))
        #expect(VersionVector().covers(VersionVector()))
    }

    /// Three replicas: Ava's phone (4 ops), Ben's phone (2 ops), a laptop (1 op); Ava's phone
    /// holds everything, the others hold their own ops only.
    final class Trio: Sendable {
        let ava: TestReplica
        let ben: TestReplica
        let laptop: TestReplica

        init() throws {
            ava = try TestReplica("ava", owner: "Ava", keySeed: 86)
            ben = try TestReplica("ben", owner: "Ben", keySeed: 87, start: baseTime + 1_000)
            laptop = try TestReplica("laptop", kind: .laptop, keySeed: 88, start: baseTime + 2_000)
            try ava.replica.addPlayer(name: "Cal")
            try ava.replica.addPlayer(name: "Dee")
            try ava.replica.pull(from: ben.replica)
            try ava.replica.pull(from: laptop.replica)
        }
    }

    @Test func theVectorHoldsEachAuthorsHead() throws {
        let trio = try Trio()
        #expect(try trio.ava.replica.versionVector().heads == [trio.ava.author: 4, trio.ben.author: 2, trio.laptop.author: 1])
        #expect(try trio.ben.replica.versionVector().heads == [trio.ben.author: 2])
        #expect(try trio.ava.replica.status().versionVector == trio.ava.replica.versionVector())
    }

    @Test func aDeltaAboveNothingIsEveryLogFromItsStart() throws {
        let trio = try Trio()
        let delta = try trio.ava.replica.delta(above: VersionVector())
        let authors = [trio.ava.author, trio.ben.author, trio.laptop.author].sorted()
        #expect(delta.map(\.author) == authors, "one segment per author, in author byte order")
        #expect(delta.map(\.firstSequence) == [1, 1, 1])
        let heads = try trio.ava.replica.versionVector()
        #expect(delta.map(\.lastSequence) == authors.map { heads[$0] })
        for segment in delta {
            #expect(try segment.verifiedOps().count == segment.tails.count)
        }
    }

    @Test func aDeltaAboveAPeersVectorIsExactlyWhatThePeerLacks() throws {
        let trio = try Trio()
        let benVector = try trio.ben.replica.versionVector()
        let delta = try trio.ava.replica.delta(above: benVector)
        #expect(Set(delta.map(\.author)) == [trio.ava.author, trio.laptop.author], "nothing of Ben's own log")
        #expect(delta.map(\.firstSequence) == [1, 1])

        let report = try trio.ben.replica.ingest(delta)
        #expect(report.opsApplied == 5)
        #expect(report.opsAlreadyHeld == 0)
        #expect(try trio.ben.replica.versionVector() == trio.ava.replica.versionVector())
        #expect(try trio.ben.replica.delta(above: trio.ava.replica.versionVector()) == [])
    }

    @Test func aDeltaStartsAboveThePeersHeadAndChainsOnIt() throws {
        let trio = try Trio()
        let delta = try trio.ava.replica.delta(above: VersionVector([trio.ava.author: 2]))
        let own = try #require(delta.first { $0.author == trio.ava.author })
        #expect(own.firstSequence == 3)
        #expect(own.lastSequence == 4)
        let full = try #require(try trio.ava.replica.delta(above: VersionVector()).first { $0.author == trio.ava.author })
        #expect(own.previousHash == (try full.verifiedOps())[1].hash)
    }

    /// A peer at our head is checked against the head's hash (read with the author's row): the
    /// same hash means nothing to send, another hash at the same sequence the whole log.
    @Test func aPeerAtOurHeadIsCheckedAgainstTheHeadsHash() throws {
        let trio = try Trio()
        let head = try #require(try trio.ava.replica.versionVector().entry(trio.ava.author))
        let same = try trio.ava.replica.delta(above: VersionVector(entries: [trio.ava.author: head]))
        #expect(!same.contains { $0.author == trio.ava.author })
        let other = VersionVector.Entry(
            sequence: head.sequence, hashPrefix: Array(repeating: 0, count: VersionVector.Entry.hashPrefixBytes))
        let branch = try trio.ava.replica.delta(above: VersionVector(entries: [trio.ava.author: other]))
        #expect(branch.first { $0.author == trio.ava.author }?.firstSequence == 1)
    }

    @Test func aPeerAheadGetsNothingOfThatAuthor() throws {
        let trio = try Trio()
        let ahead = VersionVector([trio.ava.author: 99, trio.ben.author: 2, trio.laptop.author: 1])
        #expect(try trio.ava.replica.delta(above: ahead) == [])
        #expect(try trio.ava.replica.delta(above: trio.ava.replica.versionVector()) == [])
    }

    @Test func theDigestChangesWithEveryOpAndOnlyWithOps() throws {
        let trio = try Trio()
        let before = try trio.ava.replica.digest()
        _ = try trio.ava.replica.verify()
        _ = try trio.ava.replica.ingest(trio.ben.replica.delta(above: VersionVector()))
        #expect(try trio.ava.replica.digest() == before, "reads, verify and replays change nothing")
        try trio.ava.replica.addPlayer(name: "Eve")
        let after = try trio.ava.replica.digest()
        #expect(after != before)
        try trio.ben.replica.pull(from: trio.ava.replica)
        #expect(try trio.ben.replica.digest() == after)
        #expect(try trio.ben.replica.status().digest == after)
    }
}
