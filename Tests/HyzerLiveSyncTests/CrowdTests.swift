import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import NIOConcurrencyHelpers
import NIOCore
import Testing

extension LiveSyncTests {
    /// `serve` under a crowd from the address a member also uses (a NAT, a shared Wi-Fi, loopback):
    /// the crowd keeps only that address's share of pending connections, the member still syncs,
    /// and a dialer the listener closes for a reason of its own hears that reason.
    @Suite struct CrowdTests {
        /// Connections the crowd keeps at the server from 127.0.0.1, each dialing again a second
        /// after the server closes it.
        static let crowd = 600

        @Test func aMemberAmongSixHundredConnectionsFromItsOwnAddressSyncsNineTimesInTen() async throws {
            let world = LiveWorld()
            let serverReplica = try world.replica("server", owner: "Ann")
            let round = try serverReplica.startRound(course: "Morley Field", players: ["Ann"])
            for hole in 1...9 { try serverReplica.recordScore(round: round.id.lowercased, player: "Ann", hole: hole, strokes: 3) }
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let address = serve.address
            let member = try world.replica("member", owner: "Ben")
            let connected = NIOLockedValueBox(0)
            let stop = NIOLockedValueBox(false)
            let syncs: [Duration?] = try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<Self.crowd {
                    tasks.addTask {
                        while !stop.withLockedValue({ $0 }) {
                            // Half idle, half half-open (a frame header promising 64 bytes, then nothing).
                            try? await RawPeer.connect(address, framed: index.isMultiple(of: 2), from: "127.0.0.1") { peer in
                                connected.withLockedValue { $0 += 1 }
                                if !index.isMultiple(of: 2) { try await peer.send([0, 0, 0, 64, 1]) }
                                try await peer.waitForClose()
                            }
                            try? await Task.sleep(for: .seconds(1))  // then again
                        }
                    }
                }
                // The crowd stands once every one of its connections was made at least once.
                let standing = await eventually(seconds: 60) { connected.withLockedValue { $0 } >= Self.crowd }
                #expect(standing, "only \(connected.withLockedValue { $0 }) connections made")
                var syncs: [Duration?] = []
                for _ in 0..<10 {
                    let started = ContinuousClock.now
                    let outcome = try await world.syncOnce(member, with: serve.running)
                    let elapsed = ContinuousClock.now - started
                    syncs.append(outcome.failure == nil ? elapsed : nil)
                    if let failure = outcome.failure { print("crowd: a sync failed after \(elapsed): \(failure)") }
                }
                stop.withLockedValue { $0 = true }
                tasks.cancelAll()
                return syncs
            }
            let inTime = syncs.compactMap { $0 }.filter { $0 < .seconds(2) }
            print(
                "crowd: \(connected.withLockedValue { $0 }) connections from 127.0.0.1; \(inTime.count)/10 syncs within 2 s: "
                    + syncs.map { $0.map { "\($0)" } ?? "failed" }.joined(separator: ", "))
            #expect(inTime.count >= 9, "\(inTime.count) of 10 syncs completed within 2 s")
            #expect(try member.roundView(round.id)?.evaluation.validEvents.count == 9)
        }

        /// A fresh first message on a connection from `source`, answered: the connection has
        /// proved the group secret and is held, unfinished, until `held` ends.
        static func holdVerified(
            _ address: PeerAddress, from source: String, as replica: Replica, group: GroupMembership,
            opened: AsyncStream<Void>.Continuation,
            held: AsyncStream<Void>
        ) async throws {
            try await RawPeer.connect(address, from: source) { peer in
                var handshake = Handshake(role: .dialer, author: replica.author, sign: { replica.signature(of: $0) }, group: group)
                let hello = handshake.start()
                try await peer.send(try #require(hello))
                _ = try #require(try await peer.receive())
                opened.yield()
                for await _ in held {}
            }
        }

        @Test func aNinthPendingConnectionTakesTheOldestsPlace() async throws {
            let scene = try await HostilePeerTests.Scene { $0.configuration.firstMessageTimeoutMilliseconds = 60_000 }
            defer { scene.server.stop() }
            let address = scene.server.address
            let (heard, hear) = AsyncStream<[UInt8]?>.makeStream()
            let (opened, open) = AsyncStream<Int>.makeStream()
            var openedOne = opened.makeAsyncIterator()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for index in 0..<8 {
                    tasks.addTask {
                        try await RawPeer.connect(address, from: "127.0.0.3") { peer in
                            open.yield(index)
                            hear.yield(try await peer.receive())
                        }
                    }
                    // One at a time, so the first is the oldest.
                    _ = await openedOne.next()
                    try await Task.sleep(for: .milliseconds(50))
                }
                // The ninth from that address: the oldest pending one is told and closed.
                let started = ContinuousClock.now
                tasks.addTask { try await RawPeer.connect(address, from: "127.0.0.3") { peer in try await peer.waitForClose() } }
                var notices = heard.makeAsyncIterator()
                let notice = await notices.next()
                #expect(notice == .some(ListenerBusy.addressCrowded.frame))
                #expect(ContinuousClock.now - started < .seconds(5))
                #expect(await scene.server.waitFor { $0.contains { $0.failure == .evicted } })
                scene.server.stop()
                try await tasks.waitForAll()
            }
        }

        /// Eight connections from one address whose first messages verified are not replaced by
        /// strangers: a ninth is refused and told why; another address gets through meanwhile.
        @Test func connectionsThatProvedTheSecretAreNotReplaced() async throws {
            let scene = try await HostilePeerTests.Scene()
            defer { scene.server.stop() }
            let address = scene.server.address
            let member = scene.member
            let group = scene.world.group
            let (held, release) = AsyncStream<Void>.makeStream()
            let (opened, open) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<8 {
                    tasks.addTask {
                        try await Self.holdVerified(address, from: "127.0.0.3", as: member, group: group, opened: open, held: held)
                    }
                }
                var count = 0
                for await _ in opened {
                    count += 1
                    if count == 8 { break }
                }
                try await Task.sleep(for: .milliseconds(200))  // the server was told all eight verified
                let notice = try await RawPeer.connect(address, from: "127.0.0.3") { peer in try await peer.receive() }
                #expect(notice == ListenerBusy.addressCrowded.frame)
                let proved = try await RawPeer.connect(address, from: "127.0.0.4") { peer in
                    _ = try await peer.handshake(as: member, group: group)
                    return true
                }
                #expect(proved)
                release.finish()
                try await tasks.waitForAll()
            }
        }

        /// `sync --peer` refused for the crowd says so, in its own words, through the binary.
        @Test func aDialerRefusedForTheCrowdIsToldSo() async throws {
            let world = LiveWorld()
            _ = try world.replica("server", owner: "Ann")
            let member = try world.replica("member", owner: "Ben")
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let address = serve.address
            let group = world.group
            let (held, release) = AsyncStream<Void>.makeStream()
            let (opened, open) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<8 {
                    tasks.addTask {
                        try await Self.holdVerified(address, from: "127.0.0.1", as: member, group: group, opened: open, held: held)
                    }
                }
                var count = 0
                for await _ in opened {
                    count += 1
                    if count == 8 { break }
                }
                try await Task.sleep(for: .milliseconds(200))
                let result = try BinaryRunner(store: world.directory.path("member")).run("sync", "--peer", "127.0.0.1:\(address.port)")
                #expect(result.status == 1)
                #expect(
                    result.stderr
                        == "error: sync with 127.0.0.1:\(address.port) failed: the peer is busy: too many connections from this address "
                        + "have not completed their handshake (a shared network, or someone flooding the peer); try again shortly; "
                        + "nothing partial was kept\n", "\(result)")
                release.finish()
                try await tasks.waitForAll()
            }
        }
    }
}
