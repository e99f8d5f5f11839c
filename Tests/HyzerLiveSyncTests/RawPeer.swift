import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import NIOCore
import NIOPosix

@testable import HyzerSync

/// A hand-driven peer for hostile tests: raw bytes, or frames with a real handshake, in
/// whatever order the test wants.
struct RawPeer {
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Connects to `address` and runs `body`; `framed` adds the length-prefix codec,
    /// `receiveBufferBytes` shrinks the socket's receive buffer (a slow consumer), and `from`
    /// picks the local address (any of 127.0.0.0/8 on loopback: many sources on one machine).
    static func connect<T: Sendable>(
        _ address: PeerAddress, framed: Bool = true, receiveBufferBytes: Int? = nil, from source: String? = nil,
        _ body: (inout RawPeer) async throws -> T
    ) async throws -> T {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let receiveBufferBytes {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes))
        }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: address.host, port: address.port) { channel in
            channel.eventLoop.makeCompletedFuture {
                if framed {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(FrameEncoder()))
                }
                // Buffer little, so a peer that stops reading soon stops the socket too.
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2)))
            }
        }
        return try await channel.executeThenClose { inbound, outbound in
            var peer = RawPeer(inbound: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&peer)
        }
    }

    func send(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    /// The next frame, or `nil` once the server closed the connection.
    mutating func receive() async throws -> [UInt8]? {
        try await inbound.next().map { Array($0.readableBytesView) }
    }

    /// Waits until the server closes the connection, reading and discarding what it sends.
    mutating func waitForClose() async throws {
        while try await receive() != nil {}
    }

    /// Completes a genuine handshake as `replica` and exchanges stream headers.
    mutating func handshake(as replica: Replica, group: GroupMembership) async throws -> (SecretStream.Sender, SecretStream.Receiver) {
        var handshake = Handshake(role: .dialer, author: replica.author, sign: { replica.signature(of: $0) }, group: group)
        try await send(handshake.start()!)
        return try await completeHandshake(&handshake)
    }

    /// The rest of the handshake after the dialer's hello.
    mutating func completeHandshake(_ handshake: inout Handshake) async throws -> (SecretStream.Sender, SecretStream.Receiver) {
        guard let hello = try await receive(), case .send(let identity) = try handshake.receive(hello) else { throw RawPeerError.handshake }
        try await send(identity)
        guard let proof = try await receive(), case .established(let keys, _) = try handshake.receive(proof) else {
            throw RawPeerError.handshake
        }
        let sender = SecretStream.Sender(key: keys.sendKey)
        try await send(sender.header)
        guard let header = try await receive(), let receiver = SecretStream.Receiver(key: keys.receiveKey, header: header) else {
            throw RawPeerError.handshake
        }
        return (sender, receiver)
    }
}

enum RawPeerError: Error { case handshake }

/// The resident memory of a process, from /proc (Linux), in bytes: all of it (`VmRSS`, which
/// counts the binary's own pages as they are read), or only what the process allocated
/// (`RssAnon`: heap, stacks, buffers — what connections and bundles cost).
func residentBytes(of pid: String, field: String = "VmRSS") -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1024
}
