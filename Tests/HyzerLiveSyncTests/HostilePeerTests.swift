import Foundation
import HyzerBench
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import NIOCore
import Testing

extension LiveSyncTests {
    /// Hostile and broken peers: each is closed with a logged reason, nothing partial is ingested,
    /// and the server keeps serving everyone else.
    @Suite struct HostilePeerTests {
        /// A server whose replica holds a round, and a well-behaved member to prove it still serves.
        struct Scene {
            let world = LiveWorld()
            let server: RunningServer
            let serverReplica: Replica
            let member: Replica

            init(historyOps: Int = 0, configure: @escaping (inout PeerServer) -> Void = { _ in }) async throws {
                serverReplica = try world.replica("server", owner: "Ann")
                try serverReplica.startRound(course: "Morley Field", players: ["Ann"])
                if historyOps > 0 {
                    let history = AuthorSegment(
                        ops: BenchData.ops(keys: SigningKeyPair(seed: Array(repeating: 6, count: 32)), count: historyOps))
                    _ = try serverReplica.ingest([history])
                }
                member = try world.replica("member", owner: "Ben")
                server = try await world.serve(serverReplica) { server in
                    server.configuration.writeTimeoutMilliseconds = 3_000
                    configure(&server)
                }
            }

            /// The server closed one connection for `failure`, kept its store, and still syncs a member.
            func expectRefused(
                _ failure: SyncFailure, digestBefore: String, sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let refused = await server.waitFor { $0.contains { $0.failure == failure } }
                let outcomes = server.finished.map { $0.failure?.description ?? "ok" }
                #expect(refused, "no connection closed for '\(failure)': \(outcomes)", sourceLocation: sourceLocation)
                #expect(try serverReplica.digest() == digestBefore, "the server's store changed", sourceLocation: sourceLocation)
                let good = try await world.syncOnce(member, with: server)
                #expect(
                    good.failure == nil, "the server stopped serving: \(good.failure?.description ?? "")", sourceLocation: sourceLocation)
                #expect(try member.digest() == serverReplica.digest(), sourceLocation: sourceLocation)
            }
        }

        @Test func aPeerOfAnotherGroup() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let stranger = try Replica.create(at: scene.world.directory.path("stranger"), name: "stranger", kind: .phone)
            let otherGroup = GroupMembership(id: UUID(), secret: Array(repeating: 99, count: 32))
            try stranger.join(otherGroup)
            let outcome = try await PeerDialer.connectAndRun(
                scene.server.address, replica: stranger, group: otherGroup, mode: .oneShot, logger: scene.world.logger)
            #expect(outcome.failure != nil)
            #expect(outcome.peer == nil, "the stranger learned the server's identity")
            try await scene.expectRefused(.notAGroupMember, digestBefore: before)
        }

        @Test func garbageBeforeTheHandshake() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            try await RawPeer.connect(scene.server.address) { peer in
                try await peer.send((0..<Handshake.helloBytes).map { UInt8(truncatingIfNeeded: $0 &* 37) })
                try await peer.waitForClose()
            }
            try await scene.expectRefused(.notAGroupMember, digestBefore: before)
        }

        @Test func anHTTPRequestIsAFrameBeyondTheBound() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            try await RawPeer.connect(scene.server.address, framed: false) { peer in
                try await peer.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                try await peer.waitForClose()
            }
            try await scene.expectRefused(
                .frameTooLarge(bytes: 0x4745_5420, limit: SyncEngine.handshakeFrameBytesMax), digestBefore: before)
        }

        @Test func aFrameLengthBeyondTheBound() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            try await RawPeer.connect(scene.server.address, framed: false) { peer in
                try await peer.send([0x7f, 0xff, 0xff, 0xff, 1, 2, 3])
                try await peer.waitForClose()
            }
            try await scene.expectRefused(
                .frameTooLarge(bytes: 0x7fff_ffff, limit: SyncEngine.handshakeFrameBytesMax), digestBefore: before)
        }

        @Test func aTruncatedFrame() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            try await RawPeer.connect(scene.server.address, framed: false) { peer in
                try await peer.send([0, 0, 0, 64] + Array(repeating: 1, count: 10))
            }
            try await scene.expectRefused(.closedDuringHandshake, digestBefore: before)
        }

        @Test func aPeerThatSaysNothing() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            try await RawPeer.connect(scene.server.address) { peer in try await peer.waitForClose() }
            try await scene.expectRefused(.handshakeTimeout, digestBefore: before)
        }

        @Test func garbageAfterTheHandshake() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            try await RawPeer.connect(scene.server.address) { peer in
                _ = try await peer.handshake(as: member, group: group)
                try await peer.send(Array(repeating: 0xAB, count: 100))
                try await peer.waitForClose()
            }
            try await scene.expectRefused(.frameAuthenticationFailed, digestBefore: before)
        }

        @Test func aTamperedFrame() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            try await RawPeer.connect(scene.server.address) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                var sealed = sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded())
                sealed[sealed.count / 2] ^= 0x10
                try await peer.send(sealed)
                try await peer.waitForClose()
            }
            try await scene.expectRefused(.frameAuthenticationFailed, digestBefore: before)
        }

        @Test func aPeerThatDisconnectsMidDelta() async throws {
            let scene = try await Scene()
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            try member.addPlayer(name: "Half-sent")
            let bundle = Bundle(
                groupID: group.id, sender: member.author, senderVector: try member.versionVector(),
                segments: try member.delta(above: VersionVector())
            ).connectionEncoded()
            try await RawPeer.connect(scene.server.address) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded()))
                try await peer.send(
                    sender.seal(SyncMessage.bundlePart(bytes: Array(bundle.prefix(bundle.count / 2)), final: false).encoded()))
            }
            try await scene.expectRefused(.connectionLost, digestBefore: before)
        }

        @Test func aPeerThatStopsReading() async throws {
            let scene = try await Scene(historyOps: 100_000)
            defer { scene.server.stop() }
            let before = try scene.serverReplica.digest()
            let member = scene.member
            let group = scene.world.group
            let server = scene.server
            try await RawPeer.connect(scene.server.address, receiveBufferBytes: 4096) { peer in
                var (sender, _) = try await peer.handshake(as: member, group: group)
                // Ask for everything, then read nothing more.
                try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: true).encoded()))
                _ = await server.waitFor { $0.contains { $0.failure == .stalled } }
            }
            try await scene.expectRefused(.stalled, digestBefore: before)
        }

        @Test func fiftyConnectionsAtOnce() async throws {
            // All from one address, so the budget for handshakes per source is raised.
            let scene = try await Scene { $0.unauthenticatedPerSourceMax = 50 }
            defer { scene.server.stop() }
            let world = scene.world
            let members = try (0..<10).map { try world.replica("m\($0)") }
            let server = scene.server
            let outcomes = try await withThrowingTaskGroup(of: ConnectionOutcome.self) { group in
                for index in 0..<50 {
                    let member = members[index % members.count]
                    group.addTask { try await world.syncOnce(member, with: server) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 50)
            #expect(outcomes.allSatisfy { $0.failure == nil }, "\(outcomes.compactMap(\.failure))")
            for member in members { #expect(try member.roundViewCount() == 1) }
        }
    }
}

extension Replica {
    fileprivate func roundViewCount() throws -> Int { try rounds().count }
}
