import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// The handshake message by message, with every refusal, and no sockets.
@Suite struct HandshakeTests {
    let dialerPeer: Peer
    let listenerPeer: Peer

    init() throws {
        dialerPeer = try Peer("dialer", keySeed: 1)
        listenerPeer = try Peer("listener", keySeed: 2)
    }

    func handshake(_ role: Handshake.Role, _ peer: Peer, group: GroupMembership = testGroup, sign: (([UInt8]) -> [UInt8])? = nil)
        -> Handshake
    {
        let replica = peer.replica
        return Handshake(role: role, author: peer.author, sign: sign ?? { replica.signature(of: $0) }, group: group)
    }

    @Test func bothSidesAgreeOnKeysAndLearnEachOther() throws {
        var dialer = handshake(.dialer, dialerPeer)
        var listener = handshake(.listener, listenerPeer)
        #expect(listener.start() == nil)
        let oneStarted = dialer.start()
        let one = try #require(oneStarted, "no dialer hello")
        #expect(one.count == Handshake.helloBytes)
        let two = try #require(try listener.receive(one).sent, "no listener hello")
        #expect(two.count == Handshake.helloBytes)
        let three = try #require(try dialer.receive(two).sent, "no dialer identity")
        #expect(three.count == Handshake.identityBytes)
        let (listenerKeys, reply) = try #require(try listener.receive(three).established, "listener not established")
        let four = try #require(reply)
        #expect(four.count == Handshake.identityBytes)
        let (dialerKeys, last) = try #require(try dialer.receive(four).established, "dialer not established")
        #expect(last == nil)
        #expect(listenerKeys.peer == dialerPeer.author)
        #expect(dialerKeys.peer == listenerPeer.author)
        #expect(dialerKeys.sendKey == listenerKeys.receiveKey)
        #expect(dialerKeys.receiveKey == listenerKeys.sendKey)
        #expect(dialerKeys.sendKey != dialerKeys.receiveKey)
    }

    @Test func aDialerOfAnotherGroupGetsNoAnswer() throws {
        var stranger = handshake(.dialer, dialerPeer, group: otherGroup)
        var listener = handshake(.listener, listenerPeer)
        #expect(throws: HandshakeError.notAGroupMember) { try listener.receive(stranger.start()!) }
        // Failed for good: a later genuine hello is refused too.
        var member = handshake(.dialer, dialerPeer)
        #expect(throws: HandshakeError.unexpectedMessage) { try listener.receive(member.start()!) }
    }

    @Test func aListenerOfAnotherGroupIsRefusedByTheDialer() throws {
        var dialer = handshake(.dialer, dialerPeer)
        var member = handshake(.listener, listenerPeer)
        var stranger = handshake(.listener, listenerPeer, group: otherGroup)
        let helloStarted = dialer.start()
        let hello = try #require(helloStarted, "no dialer hello")
        _ = try member.receive(hello)
        // The stranger cannot verify the dialer's hello, so it cannot answer either.
        #expect(throws: HandshakeError.notAGroupMember) { try stranger.receive(hello) }
        // A listener hello bound to another dialer key is refused.
        var other = handshake(.dialer, dialerPeer)
        let replyToOther = try #require(try handshake(.listener, listenerPeer).receiveFirst(other.start()!).sent)
        #expect(throws: HandshakeError.notAGroupMember) { try dialer.receive(replyToOther) }
    }

    @Test func messagesOfTheWrongSizeAreMalformed() throws {
        var listener = handshake(.listener, listenerPeer)
        #expect(throws: HandshakeError.wrongSize(.hello, bytes: 63)) { try listener.receive([UInt8](repeating: 1, count: 63)) }
        var dialer = handshake(.dialer, dialerPeer)
        listener = handshake(.listener, listenerPeer)
        let two = try #require(try listener.receive(dialer.start()!).sent)
        let three = try #require(try dialer.receive(two).sent)
        #expect(throws: HandshakeError.wrongSize(.identity, bytes: 113)) { try listener.receive(three + [0]) }
        #expect(throws: HandshakeError.wrongSize(.hello, bytes: 0)) { try handshake(.listener, listenerPeer).receiveFirst([]) }
        // An identity may carry a lineage of whole successions, at most `SuccessionProof.chainMax`.
        for size in [Handshake.identityBytes + SuccessionProof.byteCount - 1, Handshake.identityBytesMax + SuccessionProof.byteCount] {
            var dialer = handshake(.dialer, dialerPeer)
            var listener = handshake(.listener, listenerPeer)
            _ = try #require(try listener.receive(dialer.start()!).sent)
            #expect(throws: HandshakeError.wrongSize(.identity, bytes: size)) { try listener.receive([UInt8](repeating: 1, count: size)) }
        }
    }

    @Test func aMemberSendingAnUnusableEphemeralKeyIsRefused() throws {
        // A member (it holds the group key) whose ephemeral key is the all-zero point: no shared secret.
        let groupKey = KeyDerivation.subkey(of: testGroup.secret, context: "hyzrhand", id: 1)
        let zero = [UInt8](repeating: 0, count: 32)
        let hello = zero + MessageAuthentication.tag(Array("hyzer-hs/v1/d".utf8) + zero, key: groupKey)
        var listener = handshake(.listener, listenerPeer)
        #expect(throws: HandshakeError.invalidEphemeralKey) { try listener.receive(hello) }
    }

    @Test func aBadIdentitySignatureIsRefused() throws {
        // The dialer holds the group secret but signs with a key that is not its identity.
        var forger = handshake(.dialer, dialerPeer, sign: { seededKeys(9).sign($0) })
        var listener = handshake(.listener, listenerPeer)
        let two = try #require(try listener.receive(forger.start()!).sent)
        let three = try #require(try forger.receive(two).sent)
        #expect(throws: HandshakeError.badIdentitySignature) { try listener.receive(three) }
        // And the other way round.
        var dialer = handshake(.dialer, dialerPeer)
        var badListener = handshake(.listener, listenerPeer, sign: { seededKeys(9).sign($0) })
        let hello = try #require(try badListener.receive(dialer.start()!).sent)
        let identity = try #require(try dialer.receive(hello).sent)
        let proof = try #require(try badListener.receive(identity).established?.send)
        #expect(throws: HandshakeError.badIdentitySignature) { try dialer.receive(proof) }
    }

    @Test func aTamperedIdentityIsRefused() throws {
        var dialer = handshake(.dialer, dialerPeer)
        var listener = handshake(.listener, listenerPeer)
        let two = try #require(try listener.receive(dialer.start()!).sent)
        var three = try #require(try dialer.receive(two).sent)
        three[40] ^= 1
        #expect(throws: HandshakeError.notAGroupMember) { try listener.receive(three) }
    }

    @Test func messagesOutOfTurnAreRefused() throws {
        var dialer = handshake(.dialer, dialerPeer)
        // A dialer that has not sent its hello expects nothing.
        #expect(throws: HandshakeError.unexpectedMessage) { try dialer.receive([UInt8](repeating: 0, count: Handshake.helloBytes)) }
        var twice = handshake(.dialer, dialerPeer)
        _ = twice.start()
        #expect(twice.start() == nil, "a hello is sent once")
        // After the handshake, nothing more is a handshake message.
        var a = handshake(.dialer, dialerPeer)
        var b = handshake(.listener, listenerPeer)
        let two = try #require(try b.receive(a.start()!).sent)
        let three = try #require(try a.receive(two).sent)
        let four = try #require(try b.receive(three).established?.send)
        _ = try a.receive(four)
        #expect(throws: HandshakeError.unexpectedMessage) { try b.receive(three) }
        #expect(throws: HandshakeError.unexpectedMessage) { try a.receive(four) }
    }

    @Test func aReplayedFirstMessageIsAnsweredButCannotGoFurther() throws {
        var dialer = handshake(.dialer, dialerPeer)
        let recordedStarted = dialer.start()
        let recorded = try #require(recordedStarted, "no dialer hello")
        // A replayer sends a recorded first message to two fresh listeners: each answers with a
        // fresh ephemeral key, and the replayer, without the dialer's ephemeral secret, cannot
        // produce message 3 (docs/sync-protocol.md, replays).
        var first = handshake(.listener, listenerPeer)
        var second = handshake(.listener, listenerPeer)
        let answer1 = try #require(try first.receive(recorded).sent)
        let answer2 = try #require(try second.receive(recorded).sent)
        #expect(answer1 != answer2)
        var replayer = handshake(.dialer, dialerPeer)
        _ = replayer.start()
        // Its own ephemeral key does not match the recorded message, so the listener's hello does not verify.
        #expect(throws: HandshakeError.notAGroupMember) { try replayer.receive(answer1) }
        #expect(throws: HandshakeError.notAGroupMember) { try second.receive([UInt8](repeating: 7, count: Handshake.identityBytes)) }
    }
}

extension Handshake.Step {
    /// The bytes of a `send`, or nil.
    var sent: [UInt8]? { if case .send(let bytes) = self { bytes } else { nil } }
    /// The keys and final bytes of `established`, or nil.
    var established: (keys: SessionKeys, send: [UInt8]?)? {
        if case .established(let keys, let send) = self { (keys, send) } else { nil }
    }
}

extension Handshake {
    /// The first `receive` of a fresh value (tests only).
    fileprivate func receiveFirst(_ message: [UInt8]) throws -> Step {
        var copy = self
        return try copy.receive(message)
    }
}
