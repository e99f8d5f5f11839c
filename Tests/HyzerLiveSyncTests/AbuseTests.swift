import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import NIOCore
import Testing

extension LiveSyncTests {
    /// Attacks seen on `serve`, each run for real on loopback: the server stays within its bounds,
    /// closes the attacker with a typed failure, and keeps serving members.
    @Suite struct AbuseTests {
        /// A vector of `count` made-up authors: a `have` of about 35 bytes per author.
        static func bigVector(_ count: Int) -> VersionVector {
            var rng = SplitMix64(seed: 7)
            return VersionVector(Dictionary(uniqueKeysWithValues: (0..<count).map { _ in (AuthorID(bytes: rng.bytes(32))!, UInt64(1)) }))
        }

        @Test func aMemberFloodingHavesDoesNotGrowTheServer() async throws {
            let world = LiveWorld()
            let serverReplica = try world.replica("server", owner: "Ann")
            try serverReplica.startRound(course: "Morley Field", players: ["Ann"])
            let member = try world.replica("member", owner: "Ben")
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let group = world.group
            let before = try #require(serve.residentBytes)
            let have = SyncMessage.have(Self.bigVector(1_000)).encoded()
            var flood: (bytes: Int, peak: Int)?
            // A loaded machine can starve a fresh `serve` past its 2 s for a first message; a
            // dialer dials again, and so does this one. A failure after the handshake is reported.
            for _ in 0..<3 where flood == nil {
                do {
                    flood = try await RawPeer.connect(serve.address) { peer in
                        guard var (sender, _) = try? await peer.handshake(as: member, group: group) else { return nil }
                        try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: true).encoded()))
                        var flooded = 0
                        var peak = 0
                        let deadline = ContinuousClock.now + .seconds(3)
                        while ContinuousClock.now < deadline {
                            try await peer.send(sender.seal(have))
                            flooded += have.count
                            if flooded % (have.count * 100) == 0 { peak = max(peak, serve.residentBytes ?? 0) }
                        }
                        return (bytes: flooded, peak: max(peak, serve.residentBytes ?? 0))
                    }
                } catch {
                    Issue.record("the flood's connection failed (\(error)); serve logged:\n\(serve.log.output)")
                    return
                }
            }
            let flooded = try #require(flood, "three handshakes failed; serve logged:\n\(serve.log.output)")
            let growth = flooded.peak - before
            print("have flood: \(flooded.bytes >> 20) MiB sent in 3 s; serve's resident memory grew by \(growth >> 20) MiB")
            // Without backpressure the client writes at its own pace and the server queues what it
            // has not handled yet; with it, the client waits for the server.
            #expect(flooded.bytes > 8 << 20, "the flood was too small to show anything")
            #expect(growth < 32 << 20, "serve grew by \(growth >> 20) MiB under a flood of \(flooded.bytes >> 20) MiB")
            let good = try await world.syncOnce(member, with: serve.running)
            #expect(good.failure == nil)
        }

        @Test func anUnfinishedBundleStopsAtThePerConnectionBound() async throws {
            let scene = try await HostilePeerTests.Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            let part = SyncMessage.bundlePart(bytes: [UInt8](repeating: 0x5A, count: SyncEngine.bundlePartBytes), final: false).encoded()
            let sent = try await RawPeer.connect(scene.server.address) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded()))
                var sent = 0
                // Write until the server closes; a write after its close fails.
                while sent < 64 << 20 {
                    do { try await peer.send(sender.seal(part)) } catch { break }
                    sent += SyncEngine.bundlePartBytes
                }
                return sent
            }
            #expect(sent < 64 << 20)
            let limit = SyncEngine.Configuration().bundleBytesMax
            try await scene.expectRefused(.bundleTooLarge(limit: limit), digestBefore: before)
        }

        @Test func unfinishedBundlesOfSeveralMembersShareOneBudget() async throws {
            let scene = try await HostilePeerTests.Scene { $0.budget = BundleBudget(bytesMax: 4 << 20) }
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let world = scene.world
            let group = world.group
            let part = SyncMessage.bundlePart(bytes: [UInt8](repeating: 0x5A, count: SyncEngine.bundlePartBytes), final: false).encoded()
            let server = scene.server
            // Each member holds 3 MiB of an unfinished bundle; the second does not fit in 4 MiB.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for name in ["first", "second"] {
                    let member = try world.replica(name)
                    tasks.addTask {
                        try await RawPeer.connect(server.address) { peer in
                            var (sender, _) = try await peer.handshake(as: member, group: group)
                            try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded()))
                            for _ in 0..<12 { try? await peer.send(sender.seal(part)) }
                            _ = await server.waitFor { $0.contains { $0.failure == .budgetExhausted } }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            try await scene.expectRefused(.budgetExhausted, digestBefore: before)
            #expect(scene.server.finished.filter { $0.failure == .budgetExhausted }.count == 1)
        }

        /// A recorded first message is answered once (the dialer's own connection), and refused
        /// unanswered every time it is sent again: no key exchange, nothing learnt.
        @Test func aReplayedFirstMessageIsAnsweredOnceThenNeverAgain() async throws {
            let scene = try await HostilePeerTests.Scene()
            defer { scene.server.stop() }
            let member = scene.member
            let group = scene.world.group
            var handshake = Handshake(role: .dialer, author: member.author, sign: { member.signature(of: $0) }, group: group)
            let recording = handshake.start()
            let recorded = try #require(recording)
            var answers: [[UInt8]] = []
            for _ in 0..<51 {
                let answer = try await RawPeer.connect(scene.server.address) { peer in
                    try await peer.send(recorded)
                    let answer = try await peer.receive()
                    // Without the dialer's ephemeral secret the replayer can only send noise as message 3.
                    if answer != nil { try? await peer.send([UInt8](repeating: 1, count: Handshake.identityBytes)) }
                    try await peer.waitForClose()
                    return answer
                }
                if let answer { answers.append(answer) }
            }
            #expect(answers.map(\.count) == [Handshake.helloBytes])
            let replayed = SyncFailure.handshakeRefused(.replayedFirstMessage)
            #expect(await scene.server.waitFor { $0.filter { $0.failure == replayed }.count == 50 })
            #expect(scene.server.finished.filter { $0.failure == .notAGroupMember }.count == 1)
        }

        @Test func aMemberThatHandshakesButNeverSaysHelloIsClosedWhenIdle() async throws {
            let scene = try await HostilePeerTests.Scene { $0.configuration.idleMilliseconds = 1_000 }
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            let server = scene.server
            try await RawPeer.connect(scene.server.address) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                // Heartbeats keep it alive, but they are no progress: no hello ever comes.
                for _ in 0..<40 where !server.finished.contains(where: { $0.failure == .idleTimeout }) {
                    try? await peer.send(sender.seal(SyncMessage.heartbeat.encoded()))
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            try await scene.expectRefused(.idleTimeout, digestBefore: before)
        }

        @Test func aSilentMemberIsDeclaredDeadAndAChattyOneIsNot() async throws {
            let scene = try await HostilePeerTests.Scene {
                $0.configuration.heartbeatMilliseconds = 1_000
                $0.configuration.deadMilliseconds = 3_000
            }
            defer { scene.server.stop() }
            let member = scene.member
            let group = scene.world.group
            let server = scene.server
            try await RawPeer.connect(scene.server.address) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: true).encoded()))
                // Five seconds of heartbeats every 250 ms: never cut.
                for _ in 0..<20 {
                    try await peer.send(sender.seal(SyncMessage.heartbeat.encoded()))
                    try await Task.sleep(for: .milliseconds(250))
                }
                #expect(server.finished.isEmpty, "a live member was cut: \(server.finished.map { $0.failure?.description ?? "ok" })")
                // Then silence: dead within D and a tick.
                #expect(await server.waitFor({ $0.contains { $0.failure == .peerDead } }, seconds: 10))
            }
        }
    }
}
