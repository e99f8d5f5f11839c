import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/replication.md, "Authors, logs and signatures", "Version vectors and deltas" and "Delta
/// bundles": what ingest does with the segments of authentic bundles that carry forged,
/// gapped, forked or replayed ops.
@Suite struct IngestThroughBundleTests {
    // MARK: What a connection's bundle says

    /// A connection's bundle names, of what its sender holds, only the authors it carries: the
    /// peer knows the rest from the hello and the `have`s (docs/sync-protocol.md).
    @Test func aDeltaBundleNamesOnlyTheAuthorsItCarries() throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 11)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 13, start: baseTime + 2_000)
        _ = try BundleFiles.import(try ann.export(), into: rex.replica)
        try rex.replica.addPlayer(name: "Ben")
        let delta = try rex.replica.deltaBundles(above: try ann.replica.versionVector(), group: testGroup, bytesMax: 1 << 20)
        let bundle = try DeltaBundle(connectionBytes: try #require(delta.bundles.first), sender: rex.author, groupID: testGroup.id)
        let held = try rex.replica.versionVector()
        #expect(Set(bundle.segments.map(\.author)) == [rex.author])
        #expect(bundle.senderVector == VersionVector(entries: [rex.author: try #require(held.entry(rex.author))]))
        #expect(delta.vector == held, "the engine still learns the whole vector the peer is brought up to")
        _ = try ann.replica.ingest(bundle.segments)
        #expect(try ann.replica.versionVector() == held)
    }

    // MARK: Forged authors

    /// Mallory, a member of the group, signs an op that names Ann's phone as its author and
    /// sends it in a bundle of her own (whose sender signature is valid).
    @Test func anOpSignedByAnotherAuthorThanItNamesIsRefused() throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 11)
        let mallory = try Peer("mallory-phone", owner: "Mallory", keySeed: 12, start: baseTime + 1_000)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 13, start: baseTime + 2_000)
        _ = try BundleFiles.import(try ann.export(), into: rex.replica)
        let annID = try ann.replica.resolvePlayer("Ann")
        let annHead = try ann.replica.versionVector()[ann.author]

        let forged = SignedOp(
            keys: mallory.keys, author: ann.author, sequence: annHead + 1, previousHash: try ann.headHash(),
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 5_000), payload: .deviceLinked(device: mallory.author, playerID: annID))
        let before = try StoreState(rex.replica)
        let report = try BundleFiles.import(try mallory.sealedBundle([AuthorSegment(ops: [forged])]), into: rex.replica)

        #expect(report.rejected == [.signatureMismatch(author: ann.author, sequence: annHead + 1)])
        #expect(report.opsApplied == 0 && report.segmentsPending == 0)
        let message = try #require(report.rejected.first).description
        #expect(message.contains(ann.author.short) && message.contains("does not verify"))
        #expect(try StoreState(rex.replica) == before)
        #expect(try !rex.replica.ownership().device(mallory.author, owns: ParticipantID(player: annID)))

        // Ann's genuine next op (same sequence number) still goes in afterwards.
        try ann.replica.addPlayer(name: "Ben")
        let good = try BundleFiles.import(try ann.export(), into: rex.replica)
        #expect(good.rejected.isEmpty && good.opsApplied == 1)
        #expect(try rex.replica.digest() != before.digest)
        #expect(try rex.replica.verify().isIntact)
    }

    /// The forged op at the end of Ann's genuine chain: the segment's one signature covers the
    /// whole chain, so none of Ann's genuine ops is taken either, while Mallory's own segment
    /// in the same bundle is applied (each segment is all-or-nothing on its own).
    @Test func aForgedOpAtTheEndOfAGenuineChainSpoilsTheWholeSegmentOnly() throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 11)
        let mallory = try Peer("mallory-phone", owner: "Mallory", keySeed: 12, start: baseTime + 1_000)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 13, start: baseTime + 2_000)
        try ann.replica.addPlayer(name: "Ben")
        let genuine = try ann.segment(of: ann.author)
        let forged = SignedOp(
            keys: mallory.keys, author: ann.author, sequence: genuine.lastSequence + 1, previousHash: try ann.headHash(),
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 5_000),
            payload: .playerRenamed(playerID: try ann.replica.resolvePlayer("Ben"), displayName: "Mallory's Ben"))
        let chain = AuthorSegment(
            author: ann.author, firstSequence: 1, previousHash: SignedOp.noPreviousHash,
            tails: genuine.tails + [forged.tail], lastSignature: try #require(forged.signature))
        let mallorys = try mallory.segment(of: mallory.author)

        let report = try BundleFiles.import(try mallory.sealedBundle([chain, mallorys]), into: rex.replica)
        #expect(report.rejected == [.signatureMismatch(author: ann.author, sequence: chain.lastSequence)])
        #expect(report.opsApplied == Int(mallorys.lastSequence))
        #expect(try rex.replica.versionVector()[ann.author] == 0, "no op of the forged segment is applied")
        #expect(try !rex.replica.players().contains { $0.displayName == "Ben" || $0.displayName == "Mallory's Ben" })

        _ = try BundleFiles.import(try ann.export(), into: rex.replica)
        #expect(try rex.replica.players().map(\.displayName).sorted() == ["Ann", "Ben", "Mallory", "Rex"])
    }

    // MARK: Gaps

    /// Ann's log in three bundles (ops 1–5, 6–8, 9–11), imported in every order: a bundle
    /// above a gap changes nothing visible and waits; the one that fills the gap releases it.
    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func opsAboveAGapWaitUntilTheGapFills(order: [Int]) throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 14)
        var files: [[UInt8]] = []
        var cuts: [UInt64] = [0]
        for batch in 0..<3 {
            for n in 0..<3 { try ann.replica.addPlayer(name: "Player \(batch)-\(n)") }
            files.append(try ann.sealedBundle([try ann.segment(of: ann.author, above: cuts.last!)]))
            cuts.append(try ann.replica.versionVector()[ann.author])
        }
        #expect(cuts == [0, 5, 8, 11])

        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 15, start: baseTime + 1_000)
        var imported: Set<Int> = []
        for index in order {
            let before = try StoreState(rex.replica)
            let heldBefore = (0..<3).prefix { imported.contains($0) }.count
            imported.insert(index)
            let held = (0..<3).prefix { imported.contains($0) }.count
            let report = try BundleFiles.import(files[index], into: rex.replica)

            #expect(report.rejected.isEmpty)
            #expect(try rex.replica.versionVector()[ann.author] == cuts[held])
            let waiting = imported.filter { $0 >= held }.map { Int(cuts[$0 + 1] - cuts[$0]) }.reduce(0, +)
            #expect(try rex.replica.status().pendingOps == waiting)
            if held == heldBefore {
                #expect(report.segmentsPending == 1 && report.opsApplied == 0)
                let now = try StoreState(rex.replica)
                #expect(now.digest == before.digest && now.vector == before.vector && now.opCount == before.opCount)
                #expect(now.players == before.players && now.devices == before.devices)
            } else {
                #expect(report.opsApplied == Int(cuts[held] - cuts[heldBefore]))
            }
        }

        // The same state as one import of the whole log.
        let control = try Peer("rex-phone", owner: "Rex", keySeed: 15, start: baseTime + 1_000)
        _ = try BundleFiles.import(try ann.export(), into: control.replica)
        #expect(try StoreState(rex.replica) == StoreState(control.replica))
        #expect(try rex.replica.verify().isIntact)
    }

    // MARK: Forks

    /// Two replicas made with the same seed, name and clock: their first ops are the same op,
    /// their second ops differ. That is a fork of one author's log.
    final class Twins: Sendable {
        let phone: Peer
        let restored: Peer
        let rex: Peer
        let ben: Peer

        init() throws {
            phone = try Peer("ann-phone", keySeed: 16)
            restored = try Peer("ann-phone", keySeed: 16)
            rex = try Peer("rex-phone", owner: "Rex", keySeed: 17, start: baseTime + 1_000)
            ben = try Peer("ben-phone", owner: "Ben", keySeed: 18, start: baseTime + 2_000)
            try phone.replica.addPlayer(name: "Ann")
            try restored.replica.addPlayer(name: "Zed")
        }
    }

    enum ForkDelivery: String, CaseIterable, Sendable {
        /// The whole other log, overlapping what the receiver holds.
        case overlapping
        /// Only the op after the fork, whose previous hash differs from the one held.
        case continuing
    }

    @Test(arguments: ForkDelivery.allCases)
    func aForkIsDetectedKeptAndTheAuthorRefused(_ delivery: ForkDelivery) throws {
        let t = try Twins()
        let author = t.phone.author
        #expect(t.restored.author == author)
        #expect(try t.phone.segment(of: author).tails[0] == t.restored.segment(of: author).tails[0], "op 1 is the same op")
        _ = try BundleFiles.import(try t.phone.export(), into: t.rex.replica)
        let before = try StoreState(t.rex.replica)

        let file: [UInt8]
        switch delivery {
        case .overlapping:
            file = try t.restored.export()
        case .continuing:
            try t.restored.replica.addPlayer(name: "Zoe")
            file = try t.restored.sealedBundle([try t.restored.segment(of: author, above: 2)])
        }
        let report = try BundleFiles.import(file, into: t.rex.replica)

        #expect(report.rejected == [.fork(author: author, sequence: 2)])
        #expect(report.opsApplied == 0)
        #expect(report.rejected.first?.description.contains("fork") == true)
        // The proof is kept and reported, and the author frozen at op 2: none of its ops from
        // there counts, on either branch (Ann was its op 2).
        #expect(try t.rex.replica.digest() != before.digest)
        #expect(try t.rex.replica.players().map(\.displayName).sorted() == ["Rex"])
        #expect(try t.rex.replica.status().forks.map { "\($0.author.hex)@\($0.sequence)" } == ["\(author.hex)@2"])
        let verify = try t.rex.replica.verify()
        #expect(verify.isIntact)
        #expect(verify.forks.map { "\($0.author.hex)@\($0.sequence)" } == ["\(author.hex)@2"])

        // Further ops of the author are kept as evidence and change nothing.
        let frozen = try t.rex.replica.digest()
        try t.phone.replica.addPlayer(name: "Amy")
        let later = try BundleFiles.import(try t.phone.export(), into: t.rex.replica)
        #expect(later.rejected.isEmpty && later.opsApplied == 0)
        #expect(try t.rex.replica.digest() == frozen)

        // Other authors' next good bundle still goes in.
        let good = try BundleFiles.import(try t.ben.export(), into: t.rex.replica)
        #expect(good.rejected.isEmpty && good.opsApplied == 2)
    }

    // MARK: Replays

    @Test func aReplayedBundleChangesNothing() throws {
        let ann = try Peer("ann-phone", owner: "Ann", keySeed: 19)
        let rex = try Peer("rex-phone", owner: "Rex", keySeed: 20, start: baseTime + 1_000)
        let old = try ann.export()
        try ann.replica.addPlayer(name: "Ben")
        try ann.replica.addCourse(name: "Back Yard", pars: [3, 3, 4])
        let new = try ann.export()

        #expect(try BundleFiles.import(new, into: rex.replica).opsApplied == 4)
        let after = try StoreState(rex.replica)

        let again = try BundleFiles.import(new, into: rex.replica)
        #expect(again.opsApplied == 0 && again.opsAlreadyHeld == 4 && again.rejected.isEmpty)
        let replayed = try BundleFiles.import(old, into: rex.replica)
        #expect(replayed.opsApplied == 0 && replayed.opsAlreadyHeld == 2 && replayed.rejected.isEmpty)
        #expect(try StoreState(rex.replica) == after)
        #expect(try rex.replica.status().pendingOps == 0)
    }

    /// Bundles from several authors, in many seeded orders with duplicates and stale copies:
    /// every order ends in the same state.
    @Test(arguments: [UInt64(1), 2, 3])
    func bundlesInAnyOrderEndInTheSameState(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let authors = [
            try Peer("ann-phone", owner: "Ann", keySeed: 21),
            try Peer("ben-phone", owner: "Ben", keySeed: 22, start: baseTime + 100),
            try Peer("cal-phone", owner: "Cal", keySeed: 23, start: baseTime + 200),
        ]
        // Each author writes a few ops, exporting after each (the older exports are stale copies).
        var files: [[UInt8]] = []
        for step in 0..<9 {
            let author = rng.pick(authors)
            try author.replica.addPlayer(name: "P\(step)")
            files.append(try author.export())
            // And the delta of the last op alone, which lands above a gap when it comes first.
            let head = try author.replica.versionVector()[author.author]
            files.append(try author.sealedBundle([try author.segment(of: author.author, above: head - 1)]))
        }

        var states: [StoreState] = []
        for _ in 0..<3 {
            let rex = try Peer("rex-phone", owner: "Rex", keySeed: 24, start: baseTime + 1_000)
            for file in rng.shuffled(files + files.prefix(4)) {
                let report = try BundleFiles.import(file, into: rex.replica)
                #expect(report.rejected.isEmpty)
            }
            #expect(try rex.replica.status().pendingOps == 0)
            states.append(try StoreState(rex.replica))
        }
        #expect(states.allSatisfy { $0 == states[0] })
        #expect(states[0].players.count == 4 + 9)
    }
}
