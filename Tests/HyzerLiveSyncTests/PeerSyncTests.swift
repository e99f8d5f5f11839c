import Foundation
import HyzerBench
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import NIOConcurrencyHelpers
import Testing

extension LiveSyncTests {
    /// Sync over real loopback TCP: one-shot convergence, its cost in bytes, live pushes, relay.
    @Suite struct PeerSyncTests {
        @Test func twoReplicasConvergeWithOneSync() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let round = try a.startRound(course: "Morley Field", players: ["Ann"])
            try a.recordScore(round: round.id.lowercased, player: "Ann", hole: 1, strokes: 3)
            try b.addPlayer(name: "Bea")
            let server = try await world.serve(a)
            defer { server.stop() }
            let outcome = try await world.syncOnce(b, with: server)
            #expect(outcome.failure == nil)
            #expect(outcome.peer == a.author.hex)
            #expect(outcome.opsReceived == 4)
            #expect(outcome.opsSent == 3)
            #expect(await server.waitFor { $0.count == 1 })
            #expect(try a.digest() == b.digest())
            #expect(try b.roundView(round.id)?.evaluation.standings == a.roundView(round.id)?.evaluation.standings)
        }

        /// `serve` reports each connection's progress (what metrics show): opened once the peer
        /// proved who it is, what the peer holds as it learns it, closed.
        @Test func aConnectionReportsItsProgress() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let reports = NIOLockedValueBox<[ConnectionProgress]>([])
            let server = try await world.serve(a) { server in
                server.progress = { report in reports.withLockedValue { $0.append(report) } }
            }
            defer { server.stop() }
            _ = try await world.syncOnce(b, with: server)
            #expect(await server.waitFor { $0.count == 1 })
            let seen = reports.withLockedValue { $0 }
            #expect(seen.first == .opened(peer: b.author))
            #expect(seen.last == .closed(peer: b.author))
            let holds = seen.compactMap { report -> VersionVector? in
                if case .peerHolds(b.author, let vector) = report { return vector } else { return nil }
            }
            #expect(holds.last?.heads == (try a.versionVector()).heads, "after the sync b holds all that a holds")
        }

        @Test func aNoOpSyncOfLargeReplicasCostsAFewHundredBytes() async throws {
            let world = LiveWorld()
            let a = try world.replica("a")
            let b = try world.replica("b")
            let history = AuthorSegment(ops: BenchData.ops(keys: SigningKeyPair(seed: Array(repeating: 5, count: 32)), count: 100_000))
            for replica in [a, b] { #expect(try replica.ingest([history]).opsApplied == 100_000) }
            let server = try await world.serve(a)
            defer { server.stop() }
            _ = try await world.syncOnce(b, with: server)  // the two device records
            #expect(try a.digest() == b.digest())

            let quiet = try await world.syncOnce(b, with: server)
            #expect(quiet.failure == nil)
            #expect(quiet.opsSent + quiet.opsReceived == 0)
            #expect(
                quiet.bytesSent + quiet.bytesReceived < 2048,
                "a no-op sync sent \(quiet.bytesSent) and received \(quiet.bytesReceived) bytes")

            try a.addPlayer(name: "Newcomer")
            let one = try await world.syncOnce(b, with: server)
            #expect(one.opsReceived == 1)
            #expect(one.bytesSent + one.bytesReceived < 3072, "a one-op sync sent \(one.bytesSent) and received \(one.bytesReceived) bytes")
            #expect(try a.digest() == b.digest())
        }

        /// Reconciliation (docs/sync-protocol.md): with a thousand authors in both vectors, a sync
        /// with nothing to do costs the two hellos, under 512 bytes after the handshake, and one new
        /// op of one author under two kilobytes, not the 85 KB of two whole vectors.
        @Test func aNoOpSyncOfAThousandAuthorsCostsUnder512Bytes() async throws {
            let world = LiveWorld()
            let a = try world.replica("a")
            let b = try world.replica("b")
            let logs = (0..<1_000).map { index in
                let keys = SigningKeyPair(seed: [UInt8(index >> 8), UInt8(index & 0xff)] + [UInt8](repeating: 0x5A, count: 30))
                return AuthorSegment(
                    ops: BenchData.ops(keys: keys, count: 1).map { $0.with(signature: keys.sign(SignedOp.signedMessage(hash: $0.hash))) })
            }
            for replica in [a, b] { #expect(try replica.ingest(logs).rejected.isEmpty) }
            let server = try await world.serve(a)
            defer { server.stop() }
            _ = try await world.syncOnce(b, with: server)  // the two device records
            #expect(try a.digest() == b.digest())

            // The handshake before the sync (its messages and the stream headers) costs the same
            // whatever the replicas hold; the bounds are on the sync after it.
            let quiet = try await world.syncOnce(b, with: server)
            #expect(quiet.failure == nil && quiet.opsSent + quiet.opsReceived == 0)
            #expect(quiet.handshakeBytes > 0)
            let quietBytes = quiet.bytesSent + quiet.bytesReceived - quiet.handshakeBytes
            #expect(quietBytes <= 512, "a no-op sync: \(quietBytes) bytes after the \(quiet.handshakeBytes)-byte handshake")

            try a.addPlayer(name: "Newcomer")
            let one = try await world.syncOnce(b, with: server)
            #expect(one.opsReceived == 1)
            #expect(one.handshakeBytes == quiet.handshakeBytes)
            let oneBytes = one.bytesSent + one.bytesReceived - one.handshakeBytes
            #expect(oneBytes <= 2_048, "a one-op sync: \(oneBytes) bytes after the handshake")
            #expect(try a.digest() == b.digest())
        }

        /// A log longer than one bundle crosses in several: `delta(above:)` cuts it at signed
        /// ops (here the ends of the segments it arrived in), so no bundle exceeds the bound.
        @Test func aLongLogCrossesAConnectionInBundlesWithinItsBound() async throws {
            let world = LiveWorld()
            let a = try world.replica("a")
            let b = try world.replica("b")
            let keys = SigningKeyPair(seed: Array(repeating: 7, count: 32))
            var ops = BenchData.ops(keys: keys, count: 20_000)
            for end in stride(from: 999, to: ops.count, by: 1_000) {
                ops[end] = ops[end].with(signature: keys.sign(SignedOp.signedMessage(hash: ops[end].hash)))
            }
            let segments = stride(from: 0, to: ops.count, by: 1_000).map { AuthorSegment(ops: Array(ops[$0..<($0 + 1_000)])) }
            #expect(try a.ingest(segments).opsApplied == 20_000)
            let bundleBytesMax = 256 * 1024
            let whole = Bundle.packed(
                [AuthorSegment(ops: ops)], groupID: world.group.id, sender: a.author, senderVector: try a.versionVector(),
                bytesMax: bundleBytesMax)
            #expect(whole.count == 1 && whole[0].count > bundleBytesMax, "uncut, the log is one bundle above the bound")

            let server = try await world.serve(a) { $0.configuration.bundleBytesMax = bundleBytesMax }
            defer { server.stop() }
            let outcome = try await world.syncOnce(b, with: server)
            #expect(outcome.failure == nil)
            #expect(outcome.opsReceived == 20_001)
            #expect(try a.digest() == b.digest())
        }

        @Test func liveServersPushEveryNewOp() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let serverA = try await world.serve(a)
            let serverB = try await world.serve(b, peers: [serverA.address])
            defer {
                serverA.stop()
                serverB.stop()
            }
            #expect(try await eventually { try a.digest() == b.digest() })
            let round = try a.startRound(course: "Maple Hill", players: ["Ann"])
            for hole in 1...5 {
                let event = try a.recordScore(round: round.id.lowercased, player: "Ann", hole: hole, strokes: 3)
                #expect(try await eventually { try b.roundView(round.id)?.evaluation.validEvents.contains { $0.id == event.id } == true })
            }
            // And the other way round, over the same connection.
            try b.addPlayer(name: "From B")
            #expect(try await eventually { try a.players().contains { $0.displayName == "From B" } })
        }

        /// Commits that land while a connection is sending the previous change are not folded
        /// into it: the last of a burst arrives too.
        @Test func theLastCommitOfABurstArrives() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b", owner: "Ben")
            let serverA = try await world.serve(a)
            let serverB = try await world.serve(b, peers: [serverA.address])
            defer {
                serverA.stop()
                serverB.stop()
            }
            #expect(try await eventually { try a.digest() == b.digest() })
            for burst in 1...40 {
                for player in 1...3 { try a.addPlayer(name: "Burst \(burst)-\(player)") }
                #expect(try await eventually(seconds: 5) { try b.versionVector() == a.versionVector() }, "burst \(burst)")
            }
        }

        @Test func theWatchReachesEveryoneThroughItsPhoneOnly() async throws {
            let world = LiveWorld()
            let phones = try (1...3).map { try world.replica("phone\($0)", owner: "P\($0)") }
            let watch = try world.replica("watch", kind: .watch)
            let servers = try await {
                var servers: [RunningServer] = []
                for phone in phones { servers.append(try await world.serve(phone, peers: servers.map(\.address))) }
                return servers
            }()
            let watchServer = try await world.serve(watch, peers: [servers[0].address])
            defer { for server in servers + [watchServer] { server.stop() } }
            let everyone = phones + [watch]
            #expect(try await eventually(seconds: 20) { Set(try everyone.map { try $0.digest() }).count == 1 })

            let round = try phones[1].startRound(course: "DeLaveaga", players: ["P1", "P2", "P3"])
            #expect(try await eventually { try watch.roundView(round.id) != nil })
            try phones[0].linkDevice(watch.author.hex, owner: "P1")
            #expect(
                try await eventually {
                    try watch.ownership().device(watch.author, owns: ParticipantID(player: phones[0].identity().owner!.id))
                })
            let fromWatch = try watch.recordScore(round: round.id.lowercased, player: "P1", hole: 1, strokes: 2)
            #expect(
                try await eventually {
                    try phones[2].roundView(round.id)?.evaluation.validEvents.contains { $0.id == fromWatch.id } == true
                })
            #expect(try await eventually(seconds: 20) { Set(try everyone.map { try $0.digest() }).count == 1 })
            let standings = try phones[0].roundView(round.id)!.evaluation.standings
            for replica in everyone { #expect(try replica.roundView(round.id)?.evaluation.standings == standings) }
            // The watch never spoke to phones 2 and 3: every connection they had, accepted or
            // dialed, is recorded once it ends.
            for server in servers + [watchServer] { server.stop() }
            #expect(await servers[0].waitFor { $0.contains { $0.peer == watch.author.hex } })
            for server in servers.dropFirst() {
                #expect(await server.waitFor { !$0.isEmpty })
                #expect(!server.finished.contains { $0.peer == watch.author.hex })
            }
        }
    }
}
