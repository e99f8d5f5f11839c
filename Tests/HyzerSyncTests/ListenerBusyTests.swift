import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// A listener that closes for a reason of its own says so before the close, and the dialer names
/// it; a listener gives a silent socket less time than a whole handshake.
@Suite struct ListenerBusyTests {
    let a: Peer
    let b: Peer

    init() throws {
        a = try Peer("a", keySeed: 1)
        b = try Peer("b", keySeed: 2)
    }

    @Test func theNoticeRoundTripsAndNothingElseReadsAsOne() {
        for busy in [ListenerBusy.full, .addressCrowded] { #expect(ListenerBusy(frame: busy.frame) == busy) }
        #expect(ListenerBusy(frame: ListenerBusy.full.frame + [0]) == nil)
        #expect(ListenerBusy(frame: Array("hyzer-busy/v1".utf8) + [9]) == nil)
        #expect(ListenerBusy(frame: [UInt8](repeating: 0, count: Handshake.helloBytes)) == nil)
        #expect(ListenerBusy.full.frame.count <= SyncEngine.handshakeFrameBytesMax)
    }

    @Test func aDialerToldBusyBeforeTheListenersHelloNamesIt() throws {
        var dialer = try EngineSide(b, role: .dialer, mode: .oneShot).engine
        #expect(!dialer.start(now: 0).isEmpty)
        #expect(dialer.receive(frame: ListenerBusy.addressCrowded.frame, now: 1).closedWith == .listenerBusy(.addressCrowded))
        #expect(
            SyncFailure.listenerBusy(.addressCrowded).description
                == "the peer is busy: too many connections from this address have not completed their handshake "
                + "(a shared network, or someone flooding the peer); try again shortly")
    }

    /// After the listener's hello proved the group secret, a notice is no longer believed: it is
    /// a malformed message like any other.
    @Test func aNoticeAfterTheListenersHelloIsNotBelieved() throws {
        var dialer = try EngineSide(b, role: .dialer, mode: .oneShot).engine
        let hello = try #require(HandDialer.writes(dialer.start(now: 0)).first)
        var member = Handshake(role: .listener, author: a.author, sign: { a.replica.signature(of: $0) }, group: testGroup)
        guard case .send(let reply) = try member.receive(hello) else { throw HandshakeTestError.unexpected }
        _ = dialer.receive(frame: reply, now: 1)
        let closed = dialer.receive(frame: ListenerBusy.full.frame, now: 2).closedWith
        #expect(closed != nil && closed != .listenerBusy(.full))
    }

    @Test func aListenerGivesTheFirstMessageTwoSecondsAndTheHandshakeFive() throws {
        var serve = SyncEngine.Configuration()
        serve.firstMessageTimeoutMilliseconds = 2_000
        var silent = try EngineSide(a, role: .listener, mode: .oneShot, configuration: serve).engine
        #expect(silent.nextDeadline == 2_000)
        #expect(silent.tick(now: 1_999).isEmpty)
        #expect(silent.tick(now: 2_000).closedWith == .handshakeTimeout)

        var listener = try EngineSide(a, role: .listener, mode: .oneShot, configuration: serve).engine
        var dialing = Handshake(role: .dialer, author: b.author, sign: { b.replica.signature(of: $0) }, group: testGroup)
        let firstMessage = dialing.start()
        let hello = try #require(firstMessage)
        #expect(!listener.verifiedFirstMessage)
        #expect(HandDialer.writes(listener.receive(frame: hello, now: 100)).count == 1)
        #expect(listener.verifiedFirstMessage)
        #expect(listener.nextDeadline == 5_000)
        #expect(listener.tick(now: 2_500).isEmpty)
        #expect(listener.tick(now: 5_000).closedWith == .handshakeTimeout)
        // Unless told, an engine (the simulator's) gives the first message the handshake's time.
        #expect(try EngineSide(a, role: .listener, mode: .oneShot).engine.nextDeadline == 5_000)
    }
}
