import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/store.md, "Forks": a fork's proof travels with every sync, and every replica that holds
/// the same ops and proofs freezes the forked author at the same point and shows the same
/// digest and views, whatever the order of arrival.
@Suite struct ForkConvergenceTests {
    /// One vector exchange each way, as the TCP session and the folder do: each side sends the
    /// delta above the other's vector. Returns whether anything was applied or recorded.
    @discardableResult
    static func exchange(_ a: Replica, _ b: Replica) throws -> Bool {
        let (va, vb) = (try a.versionVector(), try b.versionVector())
        let toA = try b.delta(above: va)
        let toB = try a.delta(above: vb)
        try a.ingest(toA)
        try b.ingest(toB)
        return !toA.isEmpty || !toB.isEmpty
    }

    @Test func equalLengthBranchesSeenByTwoReplicasConvergeOverVectorsAndDeltas() throws {
        let phone = try TestReplica("phone", owner: "Ava", keySeed: 71)
        let copy = try TestReplica("phone", owner: "Ava", keySeed: 71)  // a copy: same key, same first ops
        try phone.replica.addPlayer(name: "Ben")
        try copy.replica.addPlayer(name: "Zed")
        let left = try TestReplica("left", keySeed: 72, start: baseTime + 1_000)
        let right = try TestReplica("right", keySeed: 73, start: baseTime + 2_000)
        try left.replica.ingest(phone.replica.delta(above: VersionVector()))
        try right.replica.ingest(copy.replica.delta(above: VersionVector()))
        let author = phone.author
        #expect(try left.replica.versionVector()[author] == right.replica.versionVector()[author], "branches of equal length")
        #expect(try left.replica.players().map(\.displayName) != right.replica.players().map(\.displayName))

        for _ in 0..<3 { try Self.exchange(left.replica, right.replica) }
        #expect(try !Self.exchange(left.replica, right.replica), "nothing left to send once both hold the proof")

        let (l, r) = (try left.replica.status(), try right.replica.status())
        #expect(l.digest == r.digest)
        #expect(try snapshot(left.replica).views == snapshot(right.replica).views)
        // Frozen at op 3 (op 1 registers the device, op 2 creates Ava): neither Ben nor Zed counts.
        #expect(try left.replica.players().map(\.displayName) == ["Ava"])
        for status in [l, r] {
            #expect(status.forks.map(\.author) == [author])
            #expect(status.forks.map(\.sequence) == [3])
            guard case .fork(let held, let other) = status.forks.first?.reason else {
                Issue.record("the fork's evidence is shown")
                continue
            }
            #expect(held != other)
        }
        #expect(try left.replica.verify().isIntact)
        #expect(try left.replica.verify().forks.map(\.sequence) == [3])
    }

    @Test func aReplicaThatLearnsItsOwnKeyWritesElsewhereRefusesToWrite() throws {
        let phone = try TestReplica("phone", owner: "Ava", keySeed: 74)
        let copy = try TestReplica("phone", owner: "Ava", keySeed: 74)
        try phone.replica.addPlayer(name: "Ben")
        try copy.replica.ingest(phone.replica.delta(above: copy.replica.versionVector()))
        #expect(try copy.replica.status().writtenElsewhere)
        #expect(throws: ReplicaError.writtenElsewhere(author: copy.author.short, forkedAt: nil)) {
            try copy.replica.addPlayer(name: "Zed")
        }
    }

    @Test func aRefusedCopyContinuesUnderANewKeyThatOwnsWhatTheOldOneOwned() throws {
        let phone = try TestReplica("phone", owner: "Ava", keySeed: 75)
        let copy = try TestReplica("phone", owner: "Ava", keySeed: 75)
        let peer = try TestReplica("peer", owner: "Ben", keySeed: 76, start: baseTime + 1_000)
        try phone.replica.addPlayer(name: "Cal")
        try syncAll([phone.replica, peer.replica])
        try copy.replica.ingest(phone.replica.delta(above: copy.replica.versionVector()))
        #expect(throws: ReplicaError.self) { try copy.replica.addPlayer(name: "Zed") }

        let next = try copy.replica.continueUnderNewKey(seededKeys(77))
        #expect(next.author != phone.author)
        #expect(try !next.status().writtenElsewhere)
        // Organizer rights carry over: the new key starts and finishes a round organized by Ava.
        let round = try next.startRound(course: "Morley Field", players: ["Ava", "Ben"])
        try next.recordScore(round: round.id.lowercased, player: "Ava", hole: 1, strokes: 3)
        try next.finishRound(round.id.lowercased, force: true)
        try syncAll([next, peer.replica])
        let ava = try #require(try peer.replica.players().first { $0.displayName == "Ava" })
        #expect(try peer.replica.ownership().device(next.author, owns: ParticipantID(player: ava.id)))
        #expect(try peer.replica.roundView(round.id)?.evaluation.status == .completed)
        #expect(try peer.replica.digest() == next.digest())
        // The store reopens under the new key.
        try next.close()
        #expect(try Replica.open(at: copy.replica.directory).author == next.author)
    }

    // MARK: The law, by property

    /// Raw chains of one author: `trunk` ops shared, then branches that diverge at given points.
    struct Branches {
        let keys = seededKeys(90)
        let honest = seededKeys(91)
        let chains: [[SignedOp]]

        init() {
            var chains: [[SignedOp]] = []
            // A: 6 ops; B: diverges from A at 3; C: diverges from A at 5; D: an honest author.
            let a = Self.chain(keys, names: ["a1", "a2", "a3", "a4", "a5", "a6"], from: [])
            chains.append(a)
            chains.append(Self.chain(keys, names: ["b3", "b4", "b5"], from: Array(a.prefix(2))))
            chains.append(Self.chain(keys, names: ["c5", "c6", "c7"], from: Array(a.prefix(4))))
            chains.append(Self.chain(honest, names: ["d1", "d2", "d3", "d4"], from: []))
            self.chains = chains
        }

        /// Every op signed, so that any slice of a chain is a valid segment.
        static func chain(_ keys: SigningKeyPair, names: [String], from prefix: [SignedOp]) -> [SignedOp] {
            var ops = prefix
            for name in names {
                let sequence = UInt64(ops.count + 1)
                let course = ops.first?.entityID ?? UUID(uuidString: "00000000-0000-8000-8000-000000000000")!
                let payload: OpPayload =
                    sequence == 1 ? .courseCreated(name: name, pars: [3, 3, 3]) : .courseRenamed(courseID: course, name: name)
                ops.append(
                    rawOp(
                        keys: keys, sequence: sequence, previousHash: ops.last?.hash ?? SignedOp.noPreviousHash,
                        clock: HLCTimestamp(physicalMilliseconds: baseTime - 100_000 + sequence * 1_000 + UInt64(name.utf8.first!)),
                        payload: payload))
            }
            return ops
        }

        /// Each chain cut into random consecutive slices, all shuffled together.
        func pieces(_ random: inout SplitMix64) -> [AuthorSegment] {
            var pieces: [AuthorSegment] = []
            for chain in chains {
                for slice in random.batches(chain, maximum: 3) { pieces.append(AuthorSegment(ops: slice)) }
            }
            return random.shuffled(pieces)
        }
    }

    @Test func replicasHoldingTheSameOpsAndProofsAgreeWhateverTheOrderAndSplit() throws {
        let branches = Branches()
        var random = SplitMix64(seed: 0x5eed_f0e4)
        var reference: Snapshot?
        for trial in 0..<12 {
            let replica = try TestReplica("observer", keySeed: 92, start: baseTime)
            for batch in random.batches(branches.pieces(&random), maximum: 4) { try replica.replica.ingest(batch) }
            let shot = try snapshot(replica.replica)
            let status = try replica.replica.status()
            #expect(status.forks.map(\.sequence) == [3], "trial \(trial)")
            #expect(status.pendingOps == 0, "trial \(trial)")
            if let reference {
                #expect(shot.digest == reference.digest, "trial \(trial)")
                #expect(shot.views == reference.views, "trial \(trial)")
            } else {
                reference = shot
            }
        }
    }

    @Test func replicasHoldingPartsOfTheEvidenceConvergeBySyncing() throws {
        let branches = Branches()
        var random = SplitMix64(seed: 0xc0ffee)
        for trial in 0..<4 {
            let replicas = try (0..<3).map { try TestReplica("part-\(trial)-\($0)", keySeed: UInt8(93 + $0), start: baseTime) }
            // Each replica gets some of the pieces; together they hold them all.
            for piece in branches.pieces(&random) {
                try replicas[random.below(replicas.count)].replica.ingest([piece])
            }
            for _ in 0..<4 {
                for a in replicas { for b in replicas where a !== b { try Self.exchange(a.replica, b.replica) } }
            }
            let digests = Set(try replicas.map { try $0.replica.digest() })
            #expect(digests.count == 1, "trial \(trial)")
            let views = Set(try replicas.map { try snapshot($0.replica).views })
            #expect(views.count == 1, "trial \(trial)")
            for replica in replicas { #expect(try replica.replica.status().forks.map(\.sequence) == [3], "trial \(trial)") }
        }
    }
}
