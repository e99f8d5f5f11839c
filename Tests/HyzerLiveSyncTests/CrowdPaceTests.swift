import HyzerKit
import HyzerSync
import Testing

extension LiveSyncTests {
    /// docs/sync-protocol.md, "Heartbeats and dead peers": a `serve` holding more than
    /// `crowdFrom` connections asks each newcomer, in its hello, for heartbeats after 15 s of
    /// silence; the ones before keep the shipped 5 s.
    @Suite struct CrowdPaceTests {
        @Test func aCrowdsNewcomerIsAskedForFewerHeartbeats() async throws {
            let scene = try await HostilePeerTests.Scene { $0.crowdFrom = 1 }
            defer { scene.server.stop() }
            let (member, group) = (scene.member, scene.world.group)
            try await RawPeer.connect(scene.server.address) { first in
                #expect(try await Self.helloPace(&first, as: member, group: group) == 5_000)
                let crowded = try await RawPeer.connect(scene.server.address) { second in
                    try await Self.helloPace(&second, as: member, group: group)
                }
                #expect(crowded == 15_000)
            }
        }

        /// Completes the handshake and reads the server's hello: the silence after which it heartbeats.
        static func helloPace(_ peer: inout RawPeer, as member: Replica, group: GroupMembership) async throws -> UInt32? {
            var (_, receiver) = try await peer.handshake(as: member, group: group)
            guard let frame = try await peer.receive(), let plain = receiver.open(frame),
                case .hello(_, let heartbeat, _, _) = try SyncMessage(decoding: plain)
            else { return nil }
            return heartbeat
        }
    }
}
