import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import HyzerSync

extension LiveSyncTests {
    /// `serve --peer`: a peer that goes silent is declared dead and dialed again within seconds.
    @Suite struct DialerTests {
        @Test func aSilentListenerIsDeclaredDeadAndDialedAgain() async throws {
            let world = LiveWorld()
            let silent = try world.replica("silent", owner: "Sam")
            let dialer = try world.replica("dialer", owner: "Dee")
            let handshakes = NIOLockedValueBox<[ContinuousClock.Instant]>([])
            // A member that completes the handshake as a listener, then never sends another byte.
            let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0) { channel in channel.eventLoop.makeCompletedFuture { try channel.framedAsyncChannel() } }
            let port = try #require(listener.channel.localAddress?.port)
            let group = world.group
            let accepting = Task {
                try await listener.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { tasks in
                        for try await connection in inbound {
                            tasks.addTask {
                                try? await connection.executeThenClose { frames, outbound in
                                    var frames = frames.makeAsyncIterator()
                                    var handshake = Handshake(
                                        role: .listener, author: silent.author, sign: { silent.signature(of: $0) }, group: group)
                                    guard let hello = try await frames.next(),
                                        case .send(let reply) = try handshake.receive(Array(hello.readableBytesView))
                                    else { return }
                                    try await outbound.write(ByteBuffer(bytes: reply))
                                    guard let identity = try await frames.next(),
                                        case .established(let keys, let proof?) = try handshake.receive(Array(identity.readableBytesView))
                                    else { return }
                                    try await outbound.write(ByteBuffer(bytes: proof))
                                    try await outbound.write(ByteBuffer(bytes: SecretStream.Sender(key: keys.sendKey).header))
                                    handshakes.withLockedValue { $0.append(.now) }
                                    while try await frames.next() != nil {}  // read, never answer
                                }
                            }
                        }
                    }
                }
            }
            defer { accepting.cancel() }
            let server = try await world.serve(dialer, peers: [PeerAddress(host: "127.0.0.1", port: port)]) { server in
                server.configuration.heartbeatMilliseconds = 300
                server.configuration.deadMilliseconds = 1_000
            }
            defer { server.stop() }
            #expect(await server.waitFor({ $0.contains { $0.failure == .peerDead } }, seconds: 10))
            // Dead after D (1 s), dialed again after at most the 2 s backoff cap.
            #expect(await eventually(seconds: 10) { handshakes.withLockedValue { $0.count } >= 2 })
            let times = handshakes.withLockedValue { $0 }
            let gap = times[1] - times[0]
            print("silent listener: dialed again \(gap) after the first handshake")
            #expect(gap < .seconds(5))
        }
    }
}
