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
    /// `hyzer-peer serve` as its own process under about a thousand hostile connections at once:
    /// a member's one-shot sync still completes quickly and the server's memory stays small.
    @Suite struct SiegeTests {
        /// Connections the attackers keep open; each reconnects as soon as the server closes it.
        static let idle = 500
        static let slowloris = 450
        static let oversized = 100

        @Test func aMemberSyncsWhileAThousandHostileConnectionsAreOpen() async throws {
            let world = LiveWorld()
            let serverReplica = try world.replica("server", owner: "Ann")
            let round = try serverReplica.startRound(course: "Morley Field", players: ["Ann"])
            for hole in 1...9 { try serverReplica.recordScore(round: round.id.lowercased, player: "Ann", hole: hole, strokes: 3) }
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let address = serve.address

            let open = NIOLockedValueBox(0)
            let stop = NIOLockedValueBox(false)
            let flooder = try world.replica("flooder")
            let hoarder = try world.replica("hoarder")
            let member = try world.replica("member", owner: "Ben")
            let group = world.group
            let peakResident = NIOLockedValueBox(0)
            let peakAllocated = NIOLockedValueBox(0)
            let timing: Duration = try await withThrowingTaskGroup(of: Void.self) { tasks in
                /// Runs `attack` from `source` again and again until the test ends.
                func siege(from source: String, _ attack: @escaping @Sendable (inout RawPeer) async throws -> Void, framed: Bool = true) {
                    tasks.addTask {
                        while !stop.withLockedValue({ $0 }) {
                            try? await RawPeer.connect(address, framed: framed, from: source) { peer in
                                open.withLockedValue { $0 += 1 }
                                defer { open.withLockedValue { $0 -= 1 } }
                                try await attack(&peer)
                            }
                            try? await Task.sleep(for: .seconds(1))  // then again, as a botnet would
                        }
                    }
                }
                // Four or five connections from each of 250 loopback addresses: within the budget of eight
                // pending handshakes per source.
                for index in 0..<(Self.idle + Self.slowloris + Self.oversized) {
                    let source = "127.0.1.\(1 + index % 250)"
                    switch index {
                    case ..<Self.idle:
                        siege(from: source) { peer in try await peer.waitForClose() }
                    case ..<(Self.idle + Self.slowloris):
                        siege(
                            from: source,
                            { peer in
                                // A frame header promising 64 bytes, then one byte a second.
                                try await peer.send([0, 0, 0, 64])
                                while true {
                                    try await Task.sleep(for: .seconds(1))
                                    try await peer.send([1])
                                }
                            }, framed: false)
                    default:
                        siege(
                            from: source,
                            { peer in
                                try await peer.send([0x7f, 0xff, 0xff, 0xff])
                                try await peer.waitForClose()
                            }, framed: false)
                    }
                }
                let vector = AbuseTests.bigVector(6_000)
                siege(from: "127.0.9.1") { peer in
                    var (sender, _) = try await peer.handshake(as: flooder, group: group)
                    try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: true).encoded()))
                    let have = SyncMessage.have(vector).encoded()
                    while true { try await peer.send(sender.seal(have)) }
                }
                siege(from: "127.0.9.2") { peer in
                    var (sender, _) = try await peer.handshake(as: hoarder, group: group)
                    try await peer.send(sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded()))
                    let part = SyncMessage.bundlePart(bytes: [UInt8](repeating: 1, count: SyncEngine.bundlePartBytes), final: false)
                        .encoded()
                    while true { try await peer.send(sender.seal(part)) }
                }
                tasks.addTask {
                    while !stop.withLockedValue({ $0 }) {
                        let resident = serve.residentBytes ?? 0
                        let allocated = serve.allocatedBytes ?? 0
                        peakResident.withLockedValue { $0 = max($0, resident) }
                        peakAllocated.withLockedValue { $0 = max($0, allocated) }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                // Wait for the siege to stand (the 950 held open, and whichever others are between
                // their connect and the refusal), then sync as a member.
                let standing = await eventually(seconds: 60) { open.withLockedValue { $0 } >= 950 }
                #expect(standing, "only \(open.withLockedValue { $0 }) hostile connections opened")
                try await Task.sleep(for: .seconds(1))  // the refused ones reconnecting too
                let openAtStart = open.withLockedValue { $0 }
                let started = ContinuousClock.now
                let outcome = try await world.syncOnce(member, with: serve.running)
                let elapsed = ContinuousClock.now - started
                #expect(outcome.failure == nil, "\(outcome.failure?.description ?? "")")
                #expect(try member.roundView(round.id)?.evaluation.validEvents.count == 9)
                print("siege: \(openAtStart) hostile connections open; one-shot sync took \(elapsed)")
                try await Task.sleep(for: .seconds(2))  // the server's memory while the siege goes on
                stop.withLockedValue { $0 = true }
                tasks.cancelAll()
                return elapsed
            }
            let peak = peakAllocated.withLockedValue { $0 }
            print(
                "siege: serve's resident memory peaked at \(peakResident.withLockedValue { $0 } >> 20) MiB, "
                    + "\(peak >> 20) MiB of it allocated")
            #expect(timing < .seconds(10))
            // What the siege costs is what serve allocates; the pages of its own binary (some 45 MiB
            // of the debug build) are counted in the resident figure but grow with the code, not with
            // the connections.
            #expect(peak > 0 && peak < 80 << 20, "serve allocated \(peak >> 20) MiB")
        }
    }
}
