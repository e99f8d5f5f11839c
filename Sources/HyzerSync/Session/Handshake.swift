import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The keys a completed handshake yields, and who the peer proved to be.
public struct SessionKeys: Sendable, Equatable {
    /// The device the peer proved to be: its Ed25519 key.
    public let peer: AuthorID
    /// Seals what this side sends (secretstream key).
    public let sendKey: [UInt8]
    /// Opens what the peer sends.
    public let receiveKey: [UInt8]
}

/// The mutual handshake (docs/sync-protocol.md): both sides prove they hold the group secret
/// before either reveals its identity, then prove their Ed25519 identities by signing the
/// transcript, and derive fresh session keys from ephemeral X25519 keys.
///
/// ```
/// 1 dialer → listener   e_d ‖ HMAC(G, "hyzer-hs/v1/d" ‖ e_d)
/// 2 listener → dialer   e_l ‖ HMAC(G, "hyzer-hs/v1/l" ‖ e_d ‖ e_l)
/// 3 dialer → listener   box(K_dl): id_d ‖ Sig_d("hyzer-hs/v1/dialer" ‖ H(T)) ‖ lineage_d
/// 4 listener → dialer   box(K_ld): id_l ‖ Sig_l("hyzer-hs/v1/listener" ‖ H(T) ‖ id_d) ‖ lineage_l
/// G = crypto_kdf(group secret, "hyzrhand", 1); T = message 1 ‖ message 2
/// K_xy = BLAKE2b-256 keyed with G of (label ‖ crypto_kx session key ‖ H(T))
/// lineage = 0 to 4 × (predecessor:32 ‖ signature:64), empty unless the device continued another
/// ```
///
/// A listener that refuses a dialer the organizer removed sends, in place of message 4, the
/// organizer's signed removal (`RemovalProof`) sealed under `K("refusal/l", k_ld)`, when it
/// holds one; the dialer checks it and ends with `HandshakeError.removedFromGroup`
/// (docs/sync-protocol.md, "Removed devices").
public struct Handshake {
    /// Which side of the connection this is.
    public enum Role: Sendable {
        /// The side that opened the connection: it speaks first.
        case dialer
        /// The side that accepted it.
        case listener
    }

    /// Where the handshake stands.
    enum State {
        /// The dialer has not sent its hello yet.
        case idle
        /// Dialer: hello sent, waiting for the listener's.
        case awaitingListenerHello(hello: [UInt8])
        /// Listener: waiting for the dialer's hello.
        case awaitingDialerHello
        /// Listener: hellos exchanged, waiting for the dialer's identity.
        case awaitingDialerIdentity(transcript: [UInt8], keys: DerivedKeys)
        /// Dialer: identity sent, waiting for the listener's.
        case awaitingListenerIdentity(transcript: [UInt8], keys: DerivedKeys)
        case established
        case failed
    }

    struct DerivedKeys {
        let dialerBox: [UInt8]
        let listenerBox: [UInt8]
        let dialerStream: [UInt8]
        let listenerStream: [UInt8]
        /// Seals a listener's proof that the dialer was removed.
        let listenerRefusal: [UInt8]
    }

    /// What the shell does after feeding a message.
    public enum Step: Sendable {
        /// Send these bytes and wait for the peer's next message.
        case send([UInt8])
        /// The handshake is complete: send the final bytes (if any) and switch to the session.
        case established(SessionKeys, send: [UInt8]?)
        /// The peer is refused: send these bytes (a removed dialer's proof of its removal), then
        /// close, failing with `error`.
        case refuse(send: [UInt8], HandshakeError)
    }

    /// The length of a hello: an X25519 key and its group MAC.
    public static let helloBytes = 32 + MessageAuthentication.tagBytes
    /// An identity message without a lineage.
    public static let identityBytes = 32 + 64 + SecretBox.tagBytes
    /// An identity message with the longest lineage.
    public static let identityBytesMax = identityBytes + SuccessionProof.chainMax * SuccessionProof.byteCount

    private let role: Role
    private let author: AuthorID
    private let sign: ([UInt8]) -> [UInt8]
    private let group: GroupMembership
    /// The key of the epoch this handshake runs under: for a dialer, the newest unless told an
    /// older one it holds; for a listener, the one the dialer's hello proves (it tries each
    /// epoch it holds, newest first).
    private var groupKey: [UInt8]
    private var epoch: UInt32
    private let ephemeral: KeyExchange
    /// A listener's record of verified first messages: a replay is refused before the key exchange.
    private let seenHellos: SeenHellos?
    private(set) var state: State

    /// `dialEpoch`: a dialer's older epoch to dial with (docs/sync-protocol.md, "Handshake"): a
    /// listener that has not received the newest rekey proves only an older one. The listener
    /// must still be a device the newest secret was sealed to. `seenHellos`: a listener's record
    /// of the first messages it verified, shared by its connections (docs/sync-protocol.md,
    /// "Replays"); without one, a replayed first message is answered.
    public init(
        role: Role, author: AuthorID, sign: @escaping ([UInt8]) -> [UInt8], group: GroupMembership, ephemeral: KeyExchange = KeyExchange(),
        dialEpoch: UInt32? = nil, seenHellos: SeenHellos? = nil
    ) {
        self.role = role
        self.author = author
        self.sign = sign
        self.group = group
        let epoch = dialEpoch.flatMap { group.secrets[$0] != nil ? $0 : nil } ?? group.epoch
        self.epoch = epoch
        self.groupKey = Self.handshakeKey(group.secrets[epoch] ?? group.secret)
        self.ephemeral = ephemeral
        self.seenHellos = seenHellos
        self.state = role == .dialer ? .idle : .awaitingDialerHello
    }

    private static func handshakeKey(_ secret: [UInt8]) -> [UInt8] {
        KeyDerivation.subkey(of: secret, context: "hyzrhand", id: 1)
    }

    /// Whether this is a listener still waiting for the dialer's first message (where a join
    /// request may come instead of a hello).
    public var awaitsFirstMessage: Bool {
        if case .awaitingDialerHello = state { true } else { false }
    }

    /// Whether this is a dialer that sent its hello and waits for the listener's (where a
    /// listener's `ListenerBusy` notice may come instead).
    public var awaitsListenerHello: Bool {
        if case .awaitingListenerHello = state { true } else { false }
    }

    /// Whether this is a listener whose dialer's first message verified: the dialer holds the
    /// group secret (a replay would have been refused with `seenHellos`).
    public var verifiedFirstMessage: Bool {
        if case .awaitingDialerIdentity = state { true } else { false }
    }

    /// Whether this dialer's identity went to a listener that proved it holds the group secret
    /// (its hello, bound to our fresh ephemeral key, checked): a close now is that member
    /// refusing us, not a stranger. A listener never knows as much: a dialer's hello can be a
    /// replay.
    public var sentIdentityToAMember: Bool {
        if case .awaitingListenerIdentity = state { true } else { false }
    }

    /// The dialer's first message; `nil` for the listener, which speaks second.
    public mutating func start() -> [UInt8]? {
        guard case .idle = state else { return nil }
        let hello = ephemeral.publicKey + MessageAuthentication.tag(Array("hyzer-hs/v1/d".utf8) + ephemeral.publicKey, key: groupKey)
        assert(hello.count == Self.helloBytes, "a hello is a key and its tag")
        state = .awaitingListenerHello(hello: hello)
        return hello
    }

    /// Takes the peer's next message and says what to send, or that the handshake is complete.
    /// Throws `HandshakeError` for a message of the wrong size or out of turn, a MAC that is not
    /// the group's, a replayed first message, an identity signature that does not verify, or a
    /// peer the group does not admit; the handshake is then over.
    public mutating func receive(_ message: [UInt8]) throws(HandshakeError) -> Step {
        let current = state
        state = .failed  // until this step succeeds
        switch current {
        case .awaitingDialerHello:
            // A member the organizer's newest rekey has not reached yet still proves an older epoch.
            var proven: (epoch: UInt32, key: [UInt8], ephemeral: [UInt8])?
            for (epoch, secret) in group.secrets.sorted(by: { $0.key > $1.key }) {
                let key = Self.handshakeKey(secret)
                do {
                    proven = (epoch, key, try Self.checkHello(message, label: "hyzer-hs/v1/d", bound: [], key: key))
                    break
                } catch .notAGroupMember {
                    continue
                }
            }
            guard let proven else { throw .notAGroupMember }
            // A key seen before is a recorded message sent again: refused before the key exchange.
            if let seenHellos, !seenHellos.insert(proven.ephemeral) { throw .replayedFirstMessage }
            (epoch, groupKey) = (proven.epoch, proven.key)
            let dialerEphemeral = proven.ephemeral
            let hello =
                ephemeral.publicKey
                + MessageAuthentication.tag(Array("hyzer-hs/v1/l".utf8) + dialerEphemeral + ephemeral.publicKey, key: groupKey)
            let transcript = message + hello
            guard let kx = ephemeral.serverKeys(clientPublicKey: dialerEphemeral) else { throw .invalidEphemeralKey }
            // The listener receives on the dialer's transmit key and vice versa.
            state = .awaitingDialerIdentity(
                transcript: transcript, keys: derive(dialerToListener: kx.receive, listenerToDialer: kx.transmit, transcript))
            return .send(hello)
        case .awaitingListenerHello(let hello):
            let listenerEphemeral = try Self.checkHello(message, label: "hyzer-hs/v1/l", bound: Array(hello.prefix(32)), key: groupKey)
            let transcript = hello + message
            guard let kx = ephemeral.clientKeys(serverPublicKey: listenerEphemeral) else { throw .invalidEphemeralKey }
            let keys = derive(dialerToListener: kx.transmit, listenerToDialer: kx.receive, transcript)
            let proof = author.bytes + sign(Array("hyzer-hs/v1/dialer".utf8) + Blake2b.hash256(transcript)) + lineageBytes
            state = .awaitingListenerIdentity(transcript: transcript, keys: keys)
            return .send(SecretBox.seal(proof, key: keys.dialerBox, nonce: Self.zeroNonce))
        case .awaitingDialerIdentity(let transcript, let keys):
            let (dialer, lineage) = try Self.openIdentity(
                message, key: keys.dialerBox, label: "hyzer-hs/v1/dialer", transcript: transcript, bound: [])
            guard group.admits(dialer, epoch: epoch, lineage: lineage) else {
                let removed = group.isRemoved(dialer, lineage: lineage)
                let refusal = HandshakeError.notAdmitted(peer: dialer, removed: removed)
                // A removed device is shown its removal, so that it stops dialing (`RemovalProof`).
                guard removed, let proof = group.removalProof(for: dialer, lineage: lineage) else { throw refusal }
                return .refuse(send: SecretBox.seal(proof.bytes, key: keys.listenerRefusal, nonce: Self.zeroNonce), refusal)
            }
            let proof = author.bytes + sign(Array("hyzer-hs/v1/listener".utf8) + Blake2b.hash256(transcript) + dialer.bytes) + lineageBytes
            state = .established
            return .established(
                SessionKeys(peer: dialer, sendKey: keys.listenerStream, receiveKey: keys.dialerStream),
                send: SecretBox.seal(proof, key: keys.listenerBox, nonce: Self.zeroNonce))
        case .awaitingListenerIdentity(let transcript, let keys):
            // A member that refuses this device shows the organizer's removal of it, or of a key
            // it continued from; anything else under that key proves nothing.
            if let shown = SecretBox.open(message, key: keys.listenerRefusal, nonce: Self.zeroNonce) {
                guard let proof = RemovalProof(decoding: shown, group: group.id), proof.removes(author, lineage: group.lineage) else {
                    throw .unprovenRemoval
                }
                throw .removedFromGroup(proof.device)
            }
            let (listener, lineage) = try Self.openIdentity(
                message, key: keys.listenerBox, label: "hyzer-hs/v1/listener", transcript: transcript, bound: author.bytes)
            guard group.admits(listener, epoch: epoch, lineage: lineage) else {
                throw .notAdmitted(peer: listener, removed: group.isRemoved(listener, lineage: lineage))
            }
            state = .established
            return .established(SessionKeys(peer: listener, sendKey: keys.dialerStream, receiveKey: keys.listenerStream), send: nil)
        case .idle, .established, .failed:
            throw .unexpectedMessage
        }
    }

    /// This device's successions, shown after its identity.
    private var lineageBytes: [UInt8] { group.lineage.flatMap(\.bytes) }

    /// Box keys are used once each, so a zero nonce is safe.
    private static let zeroNonce = [UInt8](repeating: 0, count: SecretBox.nonceBytes)

    private func derive(dialerToListener: [UInt8], listenerToDialer: [UInt8], _ transcript: [UInt8]) -> DerivedKeys {
        assert(transcript.count == 2 * Self.helloBytes, "the transcript is the two hellos")
        let digest = Blake2b.hash256(transcript)
        func key(_ label: String, _ base: [UInt8]) -> [UInt8] { Blake2b.hash256(Array(label.utf8) + base + digest, key: groupKey) }
        return DerivedKeys(
            dialerBox: key("box/d", dialerToListener), listenerBox: key("box/l", listenerToDialer),
            dialerStream: key("stream/d", dialerToListener), listenerStream: key("stream/l", listenerToDialer),
            listenerRefusal: key("refusal/l", listenerToDialer))
    }

    private static func checkHello(_ message: [UInt8], label: String, bound: [UInt8], key: [UInt8]) throws(HandshakeError) -> [UInt8] {
        assert(bound.isEmpty || bound.count == 32, "a listener's hello is bound to the dialer's ephemeral key")
        guard message.count == helloBytes else { throw .wrongSize(.hello, bytes: message.count) }
        let ephemeral = Array(message.prefix(32))
        guard MessageAuthentication.verify(Array(message.suffix(from: 32)), of: Array(label.utf8) + bound + ephemeral, key: key) else {
            throw .notAGroupMember
        }
        return ephemeral
    }

    private static func openIdentity(
        _ message: [UInt8], key: [UInt8], label: String, transcript: [UInt8], bound: [UInt8]
    ) throws(HandshakeError) -> (AuthorID, lineage: [SuccessionProof]) {
        guard message.count >= identityBytes, message.count <= identityBytesMax,
            (message.count - identityBytes) % SuccessionProof.byteCount == 0
        else { throw .wrongSize(.identity, bytes: message.count) }
        guard let proof = SecretBox.open(message, key: key, nonce: zeroNonce), let peer = AuthorID(bytes: Array(proof.prefix(32))),
            let lineage = SuccessionProof.chain(decoding: proof.dropFirst(32 + 64))
        else {
            throw .notAGroupMember
        }
        let signed = Array(label.utf8) + Blake2b.hash256(transcript) + bound
        guard Ed25519.verify(signature: Array(proof[32..<32 + 64]), of: signed, publicKey: peer.bytes) else {
            throw .badIdentitySignature
        }
        return (peer, lineage)
    }
}
