import Foundation
import HyzerDomain
import HyzerKit
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HyzerSync

extension LiveSyncTests {
    /// `serve --discover` on an in-process LAN (`InMemoryDiscovery`), over loopback TCP
    /// (docs/discovery.md). The same on real responders: `make nettest`.
    @Suite struct DiscoveryTests {
        /// A server of `replica` on `lan` that advertises and discovers, recording which peers
        /// each connection opened with.
        static func discovering(
            _ replica: Replica, on lan: InMemoryDiscovery, world: LiveWorld, opened: NIOLockedValueBox<[AuthorID]>? = nil,
            peers: [PeerAddress] = []
        ) async throws -> RunningServer {
            try await world.serve(replica, peers: peers) { server in
                server.discovery = lan
                server.advertises = true
                server.discovers = true
                server.progress = { event in
                    if case .opened(let peer) = event { opened?.withLockedValue { $0.append(peer) } }
                }
            }
        }

        @Test func threeServersFindEachOtherOnceAndConverge() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let replicas = try ["a", "b", "c"].map { try world.replica($0, owner: $0.uppercased()) }
            let opened = replicas.map { _ in NIOLockedValueBox<[AuthorID]>([]) }
            var servers: [RunningServer] = []
            for (replica, log) in zip(replicas, opened) {
                servers.append(try await Self.discovering(replica, on: lan, world: world, opened: log))
            }
            defer { for server in servers { server.stop() } }
            try replicas[0].addPlayer(name: "Dana")
            try replicas[2].addPlayer(name: "Eve")
            let vector = { (replica: Replica) in try replica.versionVector() }
            #expect(
                try await eventually(seconds: 15) { try Set(replicas.map(vector)).count == 1 && vector(replicas[1]).entries.count == 3 })
            // Each pair connected once (one dials, the other accepts), and nobody to itself.
            try await Task.sleep(for: .milliseconds(500))
            for (replica, log) in zip(replicas, opened) {
                let peers = log.withLockedValue { $0 }
                #expect(peers.count == 2 && Set(peers).count == 2 && !peers.contains(replica.author), "\(replica.author.short): \(peers)")
            }
        }

        @Test func theAdvertisementNamesNoGroupDeviceOrOwner() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let replica = try Replica.create(
                at: world.directory.path("ann"), name: "Annika's phone", kind: .phone, owner: "Annika Svensson")
            try replica.join(world.group)
            let expires = UInt64(Date().timeIntervalSince1970 * 1_000) + 3_600_000
            _ = try replica.issueInvitation(secret: [UInt8](repeating: 9, count: 32), expiresAt: expires, uses: 2)
            let server = try await Self.discovering(replica, on: lan, world: world)
            defer { server.stop() }
            let seen = DiscoveredServices()
            let browse = try lan.browse(into: seen)
            defer { browse.stop() }
            #expect(await eventually { seen.all.first.map { DiscoveryRecord($0.txt)?.joinTags.count == 1 } == true })
            let service = try #require(seen.all.first)
            let wire = String(decoding: service.txt.wire, as: UTF8.self).lowercased() + " " + service.name.lowercased()
            let group = world.group.id
            let forbidden = [
                group.uuidString.lowercased(), Hex.encode(group.bytes), "annika", "svensson", "phone", replica.author.hex,
                replica.author.short, Hex.encode(world.group.secret),
            ]
            for text in forbidden { #expect(!wire.contains(text.lowercased()), "the advertisement holds \(text)") }
            #expect(Set(service.txt.entries.keys) == ["v", "n", "r", "g", "d", "j"])
        }

        @Test func aRekeyIsAdvertisedAsANewRevisionThatTheOldEpochNoLongerRecognises() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let organizer = try Replica.create(at: world.directory.path("org"), name: "org", kind: .laptop, owner: "Olga")
            let group = GroupMembership.new(organizer: organizer.author)
            try organizer.join(group)
            var server = PeerServer(replica: organizer, group: group, logger: world.logger)
            server.discovery = lan
            server.advertises = true
            let running = try await server.start()
            defer { running.stop() }
            let seen = DiscoveredServices()
            let browse = try lan.browse(into: seen)
            defer { browse.stop() }
            #expect(await eventually { seen.all.count == 1 })
            let first = try #require(seen.all.first.flatMap { DiscoveryRecord($0.txt) })
            #expect(first.revision == 0 && first.isTagged(for: group) && seen.all.first?.name == first.instanceName)
            try organizer.rekeyGroup(newSecret: [UInt8](repeating: 0x77, count: 32))
            #expect(await eventually { seen.all.first.flatMap { DiscoveryRecord($0.txt) }?.revision == 1 })
            let second = try #require(seen.all.first.flatMap { DiscoveryRecord($0.txt) })
            #expect(seen.all.count == 1 && seen.all.first?.name == second.instanceName, "the old revision was withdrawn")
            #expect(second.nonce == first.nonce && second.tag != first.tag)
            #expect(!second.isTagged(for: group), "a device left on the old epoch no longer recognises it")
            let rekeyed = try #require(try organizer.group())
            #expect(second.isTagged(for: rekeyed))
        }

        @Test func aFloodOfCopiedRecordsIsDialedAFewAtATimeAndTheMemberStillSyncs() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let (a, b) = (try world.replica("a", owner: "Ann"), try world.replica("b", owner: "Ben"))
            // An outsider that accepts and holds every connection without a word.
            let open = NIOLockedValueBox((now: 0, most: 0, total: 0))
            let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0) { channel in channel.eventLoop.makeCompletedFuture { try channel.framedAsyncChannel() } }
            let silentPort = try #require(silent.channel.localAddress?.port)
            let holding = Task {
                try await silent.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { tasks in
                        for try await connection in inbound {
                            open.withLockedValue { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1), total: $0.total + 1) }
                            tasks.addTask {
                                try? await connection.executeThenClose { frames, _ in for try await _ in frames {} }
                                open.withLockedValue { $0.now -= 1 }
                            }
                        }
                    }
                }
            }
            defer { holding.cancel() }
            let serverA = try await world.serve(a) { server in
                server.discovery = lan
                server.advertises = true
            }
            defer { serverA.stop() }
            let genuine = try #require(await Self.firstService(on: lan))
            // 5,000 copies of a's record, at the outsider's address, then oversized and odd ones.
            for index in 0..<5_000 {
                try lan.announce(
                    DiscoveredService(name: "copy-\(index)", address: PeerAddress(host: "127.0.0.1", port: silentPort), txt: genuine.txt))
            }
            for index in 0..<100 {
                try lan.announce(
                    DiscoveredService(
                        name: "odd-\(index)", address: PeerAddress(host: "fe80::1%eth0", port: 1),
                        txt: ServiceTXT(["v": "1", "n": String(repeating: "z", count: index), "g": "?"])))
            }
            try b.addPlayer(name: "Bea")
            let serverB = try await world.serve(b) { server in
                server.discovery = lan
                server.discovers = true
            }
            defer { serverB.stop() }
            #expect(try await eventually(seconds: 10) { try a.versionVector() == b.versionVector() })
            try await Task.sleep(for: .seconds(2))
            let counts = open.withLockedValue { $0 }
            #expect(counts.most == 0, "the member's own service came first: its copies are never dialed (\(counts))")
        }

        @Test func copiesAreDialedAtMostFourAtOnceAndGivenUp() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let b = try world.replica("b", owner: "Ben")
            let open = NIOLockedValueBox((now: 0, most: 0, total: 0))
            let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0) { channel in channel.eventLoop.makeCompletedFuture { try channel.framedAsyncChannel() } }
            let silentPort = try #require(silent.channel.localAddress?.port)
            let holding = Task {
                try await silent.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { tasks in
                        for try await connection in inbound {
                            open.withLockedValue { $0 = (now: $0.now + 1, most: max($0.most, $0.now + 1), total: $0.total + 1) }
                            tasks.addTask {
                                try? await connection.executeThenClose { frames, _ in for try await _ in frames {} }
                                open.withLockedValue { $0.now -= 1 }
                            }
                        }
                    }
                }
            }
            defer { holding.cancel() }
            // Records of 200 past runs of members (stale nonces, still tagged for the epoch),
            // replayed by an outsider at its own address; then a named peer syncs all the same.
            for index in 0..<200 {
                let record = DiscoveryRecord(group: world.group, nonce: DiscoveryRecord.makeNonce(), discovers: false)
                try lan.announce(
                    DiscoveredService(name: "stale-\(index)", address: PeerAddress(host: "127.0.0.1", port: silentPort), txt: record.txt))
            }
            let a = try world.replica("a", owner: "Ann")
            try a.addPlayer(name: "Ann's friend")
            let serverA = try await world.serve(a)
            defer { serverA.stop() }
            let serverB = try await world.serve(b, peers: [serverA.address]) { server in
                server.discovery = lan
                server.discovers = true
                server.configuration.handshakeTimeoutMilliseconds = 500
            }
            defer { serverB.stop() }
            #expect(try await eventually(seconds: 10) { try a.versionVector() == b.versionVector() }, "the named peer is not starved")
            #expect(await eventually(seconds: 10) { open.withLockedValue { $0.total } >= 8 })
            // The listener counts a connection closed when its task on the concurrency pool reads
            // the dialer's close, which under load can come after the dialer, its place given
            // back, has opened the next: one crossing is allowed here, and `DialGateTests` holds
            // the gate to exactly four places.
            let counts = open.withLockedValue { $0 }
            #expect(counts.most <= 4 + 1, "at most four handshakes with strangers at once, 200 records offered: \(counts)")
        }

        @Test func aMemberStartedAgainOnItsPortIsConnectedOnce() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            let (a, b) = (try world.replica("a", owner: "Ann"), try world.replica("b", owner: "Ben"))
            let serverA = try await world.serve(a) { server in
                server.discovery = lan
                server.discovers = true
            }
            defer { serverA.stop() }
            let first = try await Self.discovering(b, on: lan, world: world)
            try a.addPlayer(name: "Ada")
            #expect(try await eventually(seconds: 10) { try a.versionVector() == b.versionVector() })
            // b stops and starts again on the same port: a new nonce, the same address.
            first.stop()
            _ = await first.task.result
            let opened = NIOLockedValueBox<[AuthorID]>([])
            var server = PeerServer(replica: b, group: world.group, logger: world.logger)
            server.discovery = lan
            server.advertises = true
            server.discovers = true
            server.progress = { event in
                if case .opened(let peer) = event { opened.withLockedValue { $0.append(peer) } }
            }
            let again = try await server.start(listeningOn: first.address)
            defer { again.stop() }
            try a.addPlayer(name: "Abe")
            #expect(try await eventually(seconds: 10) { try a.versionVector() == b.versionVector() })
            try await Task.sleep(for: .seconds(3))
            #expect(opened.withLockedValue { $0 } == [a.author], "one connection from a, not one per run of b")
        }

        @Test func aResponderThatIsDownLeavesTheNamedPeersSyncing() async throws {
            let world = LiveWorld()
            let lan = InMemoryDiscovery()
            lan.isResponding = false
            let (a, b) = (try world.replica("a", owner: "Ann"), try world.replica("b", owner: "Ben"))
            try a.addPlayer(name: "Ada")
            let serverA = try await world.serve(a)
            defer { serverA.stop() }
            let serverB = try await Self.discovering(b, on: lan, world: world, peers: [serverA.address])
            defer { serverB.stop() }
            #expect(try await eventually(seconds: 10) { try a.versionVector() == b.versionVector() })
        }

        static func firstService(on lan: InMemoryDiscovery) async -> DiscoveredService? {
            let seen = DiscoveredServices()
            guard let browse = try? lan.browse(into: seen) else { return nil }
            defer { browse.stop() }
            _ = await eventually { !seen.all.isEmpty }
            return seen.all.first
        }
    }
}
