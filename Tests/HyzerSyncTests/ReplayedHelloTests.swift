import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// A listener's record of verified first messages (docs/sync-protocol.md, "Replays"): a recorded
/// first message sent again is refused before any key exchange, an honest dialer's every new
/// connection is answered, and the record stays within its bound.
@Suite struct ReplayedHelloTests {
    let dialerPeer: Peer
    let listenerPeer: Peer

    init() throws {
        dialerPeer = try Peer("dialer", keySeed: 1)
        listenerPeer = try Peer("listener", keySeed: 2)
    }

    func handshake(_ role: Handshake.Role, _ peer: Peer, seen: SeenHellos? = nil) -> Handshake {
        let replica = peer.replica
        return Handshake(role: role, author: peer.author, sign: { replica.signature(of: $0) }, group: testGroup, seenHellos: seen)
    }

    /// Every answer is a listener hello, and each follows a key exchange (`serverKeys`): counting
    /// answers counts key exchanges.
    func answers(to message: [UInt8], listeners: Int, seen: SeenHellos) -> (answered: Int, refused: [HandshakeError]) {
        var answered = 0
        var refused: [HandshakeError] = []
        for _ in 0..<listeners {
            var listener = handshake(.listener, listenerPeer, seen: seen)
            do {
                if case .send = try listener.receive(message) { answered += 1 }
            } catch {
                refused.append(error)
            }
        }
        return (answered, refused)
    }

    @Test func aRecordedFirstMessageReplayedFiftyTimesIsAnsweredNever() throws {
        let seen = SeenHellos()
        var dialer = handshake(.dialer, dialerPeer)
        let recording = dialer.start()
        let recorded = try #require(recording)
        // The dialer's own connection.
        #expect(answers(to: recorded, listeners: 1, seen: seen).answered == 1)
        // The recording, fifty times, each on a fresh connection to the same listener process.
        let replays = answers(to: recorded, listeners: 50, seen: seen)
        #expect(replays.answered == 0)
        #expect(replays.refused == Array(repeating: .replayedFirstMessage, count: 50))
        #expect(seen.count == 1)
    }

    @Test func anHonestDialerReconnectingFiftyTimesIsAnsweredFiftyTimes() throws {
        let seen = SeenHellos()
        var answered = 0
        for _ in 0..<50 {
            var dialer = handshake(.dialer, dialerPeer)
            var listener = handshake(.listener, listenerPeer, seen: seen)
            let firstMessage = dialer.start()
            let hello = try #require(firstMessage)
            guard case .send(let reply) = try listener.receive(hello) else { continue }
            answered += 1
            // And the handshake completes.
            guard case .send(let identity) = try dialer.receive(reply) else { throw HandshakeTestError.unexpected }
            guard case .established(let keys, _) = try listener.receive(identity) else { throw HandshakeTestError.unexpected }
            #expect(keys.peer == dialerPeer.author)
        }
        #expect(answered == 50)
        #expect(seen.count == 50)
    }

    /// A stranger's messages (a wrong MAC) never enter the record, so a stranger cannot push a
    /// recorded message out of it; only verified ones do.
    @Test func onlyVerifiedFirstMessagesAreRemembered() throws {
        let seen = SeenHellos(capacity: 4)
        var stranger = handshake(.dialer, dialerPeer)
        let genuine = stranger.start()
        var forged = try #require(genuine)
        forged[40] ^= 1
        #expect(answers(to: forged, listeners: 10, seen: seen).refused == Array(repeating: .notAGroupMember, count: 10))
        #expect(seen.count == 0)
    }

    @Test func theRecordKeepsItsBoundAndForgetsTheOldestFirst() {
        let seen = SeenHellos(capacity: 3)
        let keys = (0..<5).map { [UInt8](repeating: UInt8($0), count: 32) }
        #expect(keys.map { seen.insert($0) } == [true, true, true, true, true])
        #expect(seen.count == 3)
        // 2, 3 and 4 are remembered; 0 and 1 were forgotten.
        #expect(seen.insert(keys[4]) == false)
        #expect(seen.insert(keys[3]) == false)
        #expect(seen.insert(keys[0]) == true)
        #expect(seen.count == 3)
    }

    /// Without a record (the simulator's engines, a dialer) a replay is answered as before.
    @Test func withoutARecordAReplayIsAnswered() throws {
        var dialer = handshake(.dialer, dialerPeer)
        let recording = dialer.start()
        let recorded = try #require(recording)
        var first = handshake(.listener, listenerPeer)
        var second = handshake(.listener, listenerPeer)
        guard case .send = try first.receive(recorded), case .send = try second.receive(recorded) else {
            throw HandshakeTestError.unexpected
        }
    }
}
