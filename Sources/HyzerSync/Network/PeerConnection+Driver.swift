import HyzerCrypto
import HyzerDomain
import HyzerKit
import NIOCore
import NIOPosix

extension PeerConnection {
    /// The state of one connection: handshake, then encrypted streams and the sync session.
    /// Performs the actions the state machines return; store work runs on NIO's thread pool so
    /// the event loops never block on SQLite.
    struct Driver {
        let connection: PeerConnection
        var handshake: Handshake
        var keys: SessionKeys?
        var sender: SecretStream.Sender?
        var receiver: SecretStream.Receiver?
        var session: SyncSession
        var outcome = ConnectionOutcome()

        /// The bytes of one bundle part: frames stay under `Framing.frameBytesMax`.
        static let bundlePartBytes = 256 * 1024

        init(connection: PeerConnection) {
            self.connection = connection
            let replica = connection.replica
            handshake = Handshake(
                role: connection.role, author: replica.author, sign: { replica.signature(of: $0) }, group: connection.group)
            session = SyncSession(mode: connection.mode)
        }

        mutating func start(_ writer: FrameWriter) async throws {
            if let hello = handshake.start() { try await write(hello, writer) }
        }

        /// Handles one event; `false` ends the connection.
        mutating func handle(_ event: Event, _ writer: FrameWriter) async throws -> Bool {
            switch event {
            case .frame(let buffer):
                let bytes = Array(buffer.readableBytesView)
                outcome.bytesReceived += bytes.count + 4
                return try await received(bytes, writer)
            case .peerClosed:
                if !session.isClosed { outcome.failure = outcome.failure ?? "the peer closed the connection before the exchange completed" }
                return false
            case .readFailed(let reason):
                outcome.failure = reason
                return false
            case .handshakeDeadline:
                guard receiver == nil else { return true }
                outcome.failure = "no handshake within \(connection.handshakeTimeout)"
                return false
            case .storeChanged:
                guard receiver != nil else { return true }
                let vector = try await store { try $0.versionVector() }
                return try await perform(session.localChanged(localVector: vector), writer)
            }
        }

        private mutating func received(_ bytes: [UInt8], _ writer: FrameWriter) async throws -> Bool {
            guard let keys else {
                do {
                    switch try handshake.receive(bytes) {
                    case .send(let reply):
                        try await write(reply, writer)
                    case .established(let established, let reply):
                        if let reply { try await write(reply, writer) }
                        self.keys = established
                        outcome.peer = established.peer.hex
                        let sender = SecretStream.Sender(key: established.sendKey)
                        self.sender = sender
                        try await write(sender.header, writer)
                    }
                    return true
                } catch {
                    outcome.failure = "handshake failed: \(error)"
                    return false
                }
            }
            guard var receiver else {
                guard let receiver = SecretStream.Receiver(key: keys.receiveKey, header: bytes) else {
                    outcome.failure = "the peer's stream header is malformed"
                    return false
                }
                self.receiver = receiver
                let vector = try await store { try $0.versionVector() }
                return try await perform(session.start(localVector: vector), writer)
            }
            guard let plain = receiver.open(bytes) else {
                outcome.failure = "a frame failed authentication (changed, replayed or out of order)"
                return false
            }
            self.receiver = receiver
            guard let message = try? SyncMessage(decoding: plain) else {
                outcome.failure = "a frame holds no valid message"
                return false
            }
            return try await perform(session.receive(message), writer)
        }

        /// Performs actions in order; `false` ends the connection.
        private mutating func perform(_ actions: [SyncSession.Action], _ writer: FrameWriter) async throws -> Bool {
            for action in actions {
                switch action {
                case .send(let message):
                    try await send(message, writer)
                case .sendDelta(let above):
                    let group = connection.group
                    let delta = try await store { replica -> (bytes: [UInt8], vector: VersionVector, ops: Int)? in
                        let vector = try replica.versionVector()
                        let segments = try replica.delta(above: above)
                        guard !segments.isEmpty else { return nil }
                        let bundle = Bundle(groupID: group.id, sender: replica.author, senderVector: vector, segments: segments)
                        return (bundle.encoded(signedBy: replica.signature(of:)), vector, segments.reduce(0) { $0 + $1.tails.count })
                    }
                    guard let delta else { continue }
                    var offset = 0
                    repeat {
                        let end = min(offset + Self.bundlePartBytes, delta.bytes.count)
                        try await send(.bundlePart(bytes: Array(delta.bytes[offset..<end]), final: end == delta.bytes.count), writer)
                        offset = end
                    } while offset < delta.bytes.count
                    outcome.opsSent += delta.ops
                    session.deltaSent(upTo: delta.vector)
                case .ingest(let bytes):
                    let group = connection.group
                    let result: (report: IngestReport, sender: AuthorID, senderVector: VersionVector, local: VersionVector)
                    do {
                        result = try await store { replica in
                            let bundle = try Bundle(decoding: bytes, expectedGroup: group.id)
                            return (try replica.ingest(bundle.segments), bundle.sender, bundle.senderVector, try replica.versionVector())
                        }
                    } catch let error as BundleError {
                        outcome.failure = "the peer's bundle was refused: \(error)"
                        return false
                    }
                    guard result.sender == keys?.peer else {
                        outcome.failure = "the peer sent a bundle signed by another replica"
                        return false
                    }
                    outcome.opsReceived += result.report.opsApplied
                    for rejected in result.report.rejected {
                        connection.logger.warning("segment refused", metadata: ["peer": "\(outcome.peer ?? "")", "reason": "\(rejected)"])
                    }
                    guard try await perform(session.ingested(senderVector: result.senderVector, localVector: result.local), writer) else {
                        return false
                    }
                case .acknowledge:
                    let vector = try await store { try $0.versionVector() }
                    try await send(.have(vector), writer)
                case .finish:
                    return false
                case .fail(let reason):
                    outcome.failure = reason
                    try? await send(.bye(reason: reason), writer)
                    return false
                }
            }
            return true
        }

        private mutating func send(_ message: SyncMessage, _ writer: FrameWriter) async throws {
            guard var sender else { preconditionFailure("messages are sent only after the handshake") }
            let sealed = sender.seal(message.encoded())
            self.sender = sender
            try await write(sealed, writer)
        }

        private mutating func write(_ bytes: [UInt8], _ writer: FrameWriter) async throws {
            try await writer.write(bytes)
            outcome.bytesSent += bytes.count + 4
        }

        /// Runs store work off the event loops.
        private func store<T: Sendable>(_ work: @escaping @Sendable (Replica) throws -> T) async throws -> T {
            let replica = connection.replica
            return try await NIOThreadPool.singleton.runIfActive { try work(replica) }
        }
    }
}
