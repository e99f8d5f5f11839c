import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// The whole connection protocol driven directly: no sockets, time in the test's hands.
@Suite struct SyncEngineTests {
    let a: Peer
    let b: Peer

    init() throws {
        a = try Peer("a", owner: "Ann", keySeed: 1)
        b = try Peer("b", owner: "Ben", keySeed: 2)
        let round = try a.replica.startRound(course: "Morley Field", players: ["Ann"])
        try a.replica.recordScore(round: round.id.lowercased, player: "Ann", hole: 1, strokes: 3)
        try b.replica.addPlayer(name: "Bea")
    }

    @Test func aOneShotExchangeConvergesAndFinishesBothSides() throws {
        var pair = try EnginePair(dialer: b, listener: a)
        try pair.start()
        #expect(pair.sides.allSatisfy { $0.finished }, "\(pair.report)")
        #expect(try a.replica.digest() == b.replica.digest())
        #expect(pair.sides[0].opsIngested > 0 && pair.sides[1].opsIngested > 0)
        #expect(pair.sides.allSatisfy { $0.engine.isClosed })
    }

    @Test func aLargeDeltaTravelsAsSeveralBundlesWithinTheBound() throws {
        // Five authors of 30 ops each: more than one bound's worth, each author's segment under it.
        let authors = try (0..<5).map { try Peer("author\($0)", keySeed: UInt8(10 + $0)) }
        for author in authors {
            for n in 0..<30 { try author.replica.addPlayer(name: "\(author.name) player \(n)") }
            let report = try a.replica.ingest(author.replica.delta(above: VersionVector()))
            #expect(report.rejected.isEmpty && report.opsApplied > 30, "\(report)")
        }
        var configuration = SyncEngine.Configuration()
        configuration.bundleBytesMax = 2 * 1024
        let c = try Peer("c", keySeed: 3)
        var pair = try EnginePair(dialer: c, listener: a, configuration: configuration)
        try pair.start()
        #expect(pair.sides.allSatisfy { $0.finished }, "\(pair.report)")
        #expect(try a.replica.digest() == c.replica.digest())
        #expect(pair.sides[0].bundlesIngested >= 3)
    }

    @Test func aBundleAboveTheBoundIsNotSent() throws {
        var configuration = SyncEngine.Configuration()
        configuration.bundleBytesMax = 4 * 1024
        var listener = try EngineSide(a, role: .listener, mode: .oneShot, configuration: configuration).engine
        var dialer = try HandDialer(as: b, against: &listener)
        let asked = listener.receive(frame: dialer.sender.seal(SyncMessage.hello(VersionVector(), live: false).encoded()), now: 0)
        #expect(asked.contains { if case .prepareDelta = $0 { true } else { false } })
        let refused = listener.deltaPrepared([[UInt8](repeating: 7, count: 4 * 1024 + 1)], upTo: VersionVector(), now: 0)
        guard case .deltaTooLarge(_, let limit)? = refused.closedWith else {
            Issue.record("the listener sent \(refused)")
            return
        }
        #expect(limit == 4 * 1024)
    }

    /// The shipped driver cuts an author's long run into segments at its kept signatures
    /// (`Replica.deltaBundles`: at the last signed op within a quarter of the bound; signature
    /// compaction keeps one at least every 64 KiB of the log): 1,500 ops of one author, about
    /// 320 KiB, travel within a 128 KiB bound, and both stores verify.
    @Test func aLongRunTravelsWithinTheBound() throws {
        for n in 0..<1_500 { try a.replica.addPlayer(name: "Player \(n) " + String(repeating: "x", count: 180)) }
        var configuration = SyncEngine.Configuration()
        configuration.bundleBytesMax = 128 * 1024
        let c = try Peer("c", keySeed: 3)
        var pair = try EnginePair(dialer: c, listener: a, configuration: configuration)
        try pair.start()
        #expect(pair.sides.allSatisfy { $0.finished }, "\(pair.report)")
        #expect(try c.replica.players().count >= 1_500)
        #expect(pair.sides[0].bundlesIngested >= 3)
        #expect(try a.replica.digest() == c.replica.digest())
        for peer in [a, c] { #expect(try peer.replica.verify().isIntact) }
    }

    @Test func aHeartbeatIsSentAfterASilenceOfH() throws {
        var listener = try EngineSide(a, role: .listener, mode: .live).engine
        var dialer = try HandDialer(as: b, against: &listener)
        // The listener's last frame was its hello, when the stream opened at 0 (its delta is
        // empty): the heartbeat comes at H.
        _ = try dialer.greet(try b.replica.versionVector(), live: true, to: &listener, now: 100)
        #expect(listener.tick(now: 4_999).isEmpty)
        let beat = listener.tick(now: 5_000)
        dialer.hear(beat)
        // Live, it carries the digest of what the listener believes the dialer holds.
        #expect(dialer.heard == [.heartbeatWithDigest(HoldingsDigest.of(try b.replica.versionVector()))])
        // Documented cost: 9 bytes of message, 17 of secretstream overhead, 4 of framing.
        #expect(HandDialer.writes(beat).map(\.count) == [9 + SecretStream.overheadBytes])
        // Heartbeats from the dialer keep the listener from declaring it dead.
        for second in stride(from: 4_000, through: 40_000, by: 4_000) {
            let actions = dialer.send(.heartbeat, to: &listener, now: UInt64(second))
            #expect(actions.closedWith == nil)
            #expect(listener.tick(now: UInt64(second) + 1).closedWith == nil)
        }
    }

    /// `nextDeadline` is exactly when `tick` next acts: nothing before it, the action at it.
    @Test func theNextDeadlineIsWhenTickActs() throws {
        var waiting = try EngineSide(a, role: .listener, mode: .live, now: 500).engine
        #expect(waiting.nextDeadline == 5_500)  // the handshake timeout
        #expect(waiting.tick(now: 5_499).isEmpty)
        #expect(waiting.tick(now: 5_500).closedWith == .handshakeTimeout)
        #expect(waiting.nextDeadline == nil)

        var listener = try EngineSide(a, role: .listener, mode: .live).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = try dialer.greet(try b.replica.versionVector(), live: true, to: &listener, now: 100)
        #expect(listener.nextDeadline == 5_000)  // a heartbeat after its hello at 0
        #expect(listener.tick(now: 4_999).isEmpty)
        #expect(!listener.tick(now: 5_000).isEmpty)
        // Heartbeats sent, nothing heard since 100: the dead-peer bound comes before the next beat.
        #expect(listener.nextDeadline == 10_000)
        _ = listener.tick(now: 10_000)
        #expect(listener.nextDeadline == 15_000)
        _ = listener.tick(now: 15_000)
        #expect(listener.nextDeadline == 15_100)
        #expect(listener.tick(now: 15_100).closedWith == .peerDead)
        #expect(listener.nextDeadline == nil)
    }

    @Test func aSilentPeerIsDeclaredDeadAfterD() throws {
        var listener = try EngineSide(a, role: .listener, mode: .live).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = try dialer.greet(try b.replica.versionVector(), live: true, to: &listener, now: 1_000)
        // Our own heartbeats do not count: only what arrives.
        for second in stride(from: 2_000, to: 16_000, by: 1_000) {
            let actions = listener.tick(now: UInt64(second))
            dialer.hear(actions)
            #expect(actions.closedWith == nil)
        }
        let actions = listener.tick(now: 16_000)
        #expect(actions.closedWith == .peerDead)
        dialer.hear(actions)
        #expect(dialer.heard == [.bye(reason: SyncFailure.peerDead.description)])
        #expect(listener.isClosed)
        #expect(listener.tick(now: 20_000).isEmpty)
    }

    @Test func aOneShotPeerSendingOnlyHeartbeatsIsIdle() throws {
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialer = try HandDialer(as: b, against: &listener)
        for second in stride(from: 4_000, to: 30_000, by: 4_000) {
            _ = dialer.send(.heartbeat, to: &listener, now: UInt64(second))
            #expect(listener.tick(now: UInt64(second)).closedWith == nil)
        }
        _ = dialer.send(.heartbeat, to: &listener, now: 29_999)
        #expect(listener.tick(now: 30_000).closedWith == .idleTimeout)
    }

    @Test func aPeerThatDoesNotCompleteTheHandshakeTimesOut() throws {
        var listener = try EngineSide(a, role: .listener, mode: .live, now: 500).engine
        #expect(listener.tick(now: 5_499).isEmpty)
        #expect(listener.tick(now: 5_500).closedWith == .handshakeTimeout)
        #expect(listener.peer == nil)
    }

    @Test func aStrangersHelloIsNotAnswered() throws {
        var listener = try EngineSide(a, role: .listener, mode: .live).engine
        var stranger = Handshake(role: .dialer, author: b.author, sign: { _ in [] }, group: otherGroup)
        let actions = listener.receive(frame: stranger.start()!, now: 0)
        #expect(HandDialer.writes(actions).isEmpty)
        #expect(actions.closedWith == .notAGroupMember)
    }

    /// A member relaying another's signed file bundle over a connection is refused before ingest:
    /// a connection carries connection bundles, whose sender is the peer the handshake proved.
    @Test func aFilesSignedBundleOverAConnectionIsRefusedBeforeIngest() throws {
        let c = try Peer("c", owner: "Cat", keySeed: 3)
        let relayed = DeltaBundle(
            groupID: testGroup.id, sender: c.author, senderVector: try c.replica.versionVector(),
            segments: try c.replica.delta(above: VersionVector())
        ).encoded(signedBy: c.replica.signature(of:))
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = try dialer.greet(try b.replica.versionVector(), live: false, to: &listener)
        let before = try a.replica.digest()
        let actions = dialer.send(.bundlePart(bytes: relayed, final: true), to: &listener)
        #expect(actions.ingests.isEmpty, "a bundle of another sender reached ingest")
        #expect(actions.closedWith == .bundleRefused(.notABundle(reason: "a file's signed bundle, where a connection bundle belongs")))
        #expect(try a.replica.digest() == before)
    }

    @Test func theBundleOfThePeerIsIngestedOnceComplete() throws {
        let bundle = DeltaBundle(
            groupID: testGroup.id, sender: b.author, senderVector: try b.replica.versionVector(),
            segments: try b.replica.delta(above: VersionVector())
        ).connectionEncoded()
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = try dialer.greet(try b.replica.versionVector(), live: false, to: &listener)
        let half = bundle.count / 2
        #expect(dialer.send(.bundlePart(bytes: Array(bundle[..<half]), final: false), to: &listener).isEmpty)
        #expect(listener.bufferedBundleBytes == half)
        let actions = dialer.send(.bundlePart(bytes: Array(bundle[half...]), final: true), to: &listener)
        #expect(actions.ingests.map(\.sender) == [b.author])
        #expect(listener.bufferedBundleBytes == bundle.count, "held until ingested")
        _ = listener.ingested(senderVector: try b.replica.versionVector(), localVector: try a.replica.versionVector(), now: 0)
        #expect(listener.bufferedBundleBytes == 0)
    }

    @Test func aBundleAboveThePerConnectionBoundIsRefused() throws {
        var configuration = SyncEngine.Configuration()
        configuration.bundleBytesMax = 1000
        var listener = try EngineSide(a, role: .listener, mode: .oneShot, configuration: configuration).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = dialer.send(.hello(VersionVector(), live: false), to: &listener)
        #expect(dialer.send(.bundlePart(bytes: [UInt8](repeating: 1, count: 600), final: false), to: &listener).isEmpty)
        let actions = dialer.send(.bundlePart(bytes: [UInt8](repeating: 1, count: 600), final: false), to: &listener)
        #expect(actions.closedWith == .bundleTooLarge(limit: 1000))
        #expect(listener.bufferedBundleBytes == 0)
    }

    @Test func partialBundlesShareOneBudget() throws {
        let budget = BundleBudget(bytesMax: 1500)
        var first = try EngineSide(a, role: .listener, mode: .oneShot, budget: budget).engine
        var second = try EngineSide(a, role: .listener, mode: .oneShot, budget: budget).engine
        var one = try HandDialer(as: b, against: &first)
        var two = try HandDialer(as: b, against: &second)
        _ = one.send(.hello(VersionVector(), live: false), to: &first)
        _ = two.send(.hello(VersionVector(), live: false), to: &second)
        #expect(one.send(.bundlePart(bytes: [UInt8](repeating: 1, count: 1000), final: false), to: &first).isEmpty)
        #expect(budget.bytesUsed == 1000)
        let refused = two.send(.bundlePart(bytes: [UInt8](repeating: 1, count: 1000), final: false), to: &second)
        #expect(refused.closedWith == .budgetExhausted)
        // A connection that ends gives its share back.
        _ = first.connectionClosed()
        #expect(budget.bytesUsed == 0)
    }

    /// A listener of another group closes as soon as our first message fails its check: the
    /// dialer, still in the handshake, says the peer may be in another group; a close after the
    /// identities is a lost connection.
    @Test func aCloseDuringTheHandshakeIsNamedAsSuch() throws {
        var dialer = try EngineSide(b, role: .dialer, mode: .oneShot).engine
        #expect(!dialer.start(now: 0).isEmpty)
        #expect(dialer.connectionClosed().closedWith == .closedDuringHandshake)
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        _ = try HandDialer(as: b, against: &listener)
        #expect(listener.connectionClosed().closedWith == .connectionLost)
    }

    /// A listener that proved the group secret and then closes on our identity refused this
    /// device (what a member does with a removed one); a listener whose hello was a replay
    /// cannot be told apart, so only the dialer names it.
    @Test func aMemberThatClosesOnOurIdentityRefusedUs() throws {
        var dialer = try EngineSide(b, role: .dialer, mode: .oneShot).engine
        let hello = try #require(HandDialer.writes(dialer.start(now: 0)).first)
        var member = Handshake(role: .listener, author: a.author, sign: { a.replica.signature(of: $0) }, group: testGroup)
        guard case .send(let reply) = try member.receive(hello) else { throw HandshakeTestError.unexpected }
        #expect(HandDialer.writes(dialer.receive(frame: reply, now: 0)).count == 1, "our identity")
        #expect(dialer.connectionClosed().closedWith == .notAdmittedByPeer)

        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialing = Handshake(role: .dialer, author: b.author, sign: { b.replica.signature(of: $0) }, group: testGroup)
        guard let dialersHello = dialing.start() else { throw HandshakeTestError.unexpected }
        #expect(HandDialer.writes(listener.receive(frame: dialersHello, now: 0)).count == 1)
        #expect(listener.connectionClosed().closedWith == .closedDuringHandshake)
    }

    @Test func aDroppedEngineGivesItsBudgetBack() throws {
        let budget = BundleBudget(bytesMax: 1500)
        do {
            var engine = try EngineSide(a, role: .listener, mode: .oneShot, budget: budget).engine
            var dialer = try HandDialer(as: b, against: &engine)
            _ = dialer.send(.hello(VersionVector(), live: false), to: &engine)
            _ = dialer.send(.bundlePart(bytes: [UInt8](repeating: 1, count: 1000), final: false), to: &engine)
            #expect(budget.bytesUsed == 1000)
        }
        #expect(budget.bytesUsed == 0)
    }

    @Test func protocolViolationsCloseWithATypedFailure() throws {
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialer = try HandDialer(as: b, against: &listener)
        #expect(dialer.send(.bundlePart(bytes: [1], final: true), to: &listener).closedWith == .protocolViolation(.bundleBeforeHello))

        listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        dialer = try HandDialer(as: b, against: &listener)
        #expect(dialer.send(.have(VersionVector()), to: &listener).closedWith == .protocolViolation(.haveBeforeHello))

        listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        dialer = try HandDialer(as: b, against: &listener)
        _ = dialer.send(.hello(VersionVector(), live: false), to: &listener)
        let actions = dialer.send(.hello(VersionVector(), live: false), to: &listener)
        #expect(actions.closedWith == .protocolViolation(.secondHello))
        #expect(dialer.heard == [.bye(reason: SyncFailure.protocolViolation(.secondHello).description)])

        listener = try EngineSide(a, role: .listener, mode: .live).engine
        dialer = try HandDialer(as: b, against: &listener)
        _ = dialer.send(.hello(VersionVector(), live: true), to: &listener)
        #expect(dialer.send(.done, to: &listener).closedWith == .protocolViolation(.unexpectedDone))

        listener = try EngineSide(a, role: .listener, mode: .live).engine
        dialer = try HandDialer(as: b, against: &listener)
        #expect(dialer.send(.bye(reason: "going home"), to: &listener).closedWith == .peerClosed(reason: "going home"))
        #expect(dialer.heard.isEmpty, "no bye answers a bye")
    }

    @Test func forgedAndMalformedFramesClose() throws {
        var listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        _ = try HandDialer(as: b, against: &listener)
        #expect(listener.receive(frame: [UInt8](repeating: 0xAB, count: 40), now: 0).closedWith == .frameAuthenticationFailed)

        listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var dialer = try HandDialer(as: b, against: &listener)
        #expect(listener.receive(frame: dialer.sender.seal([99]), now: 0).closedWith == .malformedMessage)

        listener = try EngineSide(a, role: .listener, mode: .oneShot).engine
        var handshake = Handshake(role: .dialer, author: b.author, sign: { b.replica.signature(of: $0) }, group: testGroup)
        let reply = HandDialer.writes(listener.receive(frame: handshake.start()!, now: 0))[0]
        let identity = try #require(try handshake.receive(reply).sent)
        _ = listener.receive(frame: identity, now: 0)
        #expect(listener.receive(frame: [1, 2, 3], now: 0).closedWith == .malformedStreamHeader)
    }

    @Test func aFloodOfHavesCostsNothing() throws {
        var listener = try EngineSide(a, role: .listener, mode: .live).engine
        var dialer = try HandDialer(as: b, against: &listener)
        _ = try dialer.greet(try b.replica.versionVector(), live: true, to: &listener)
        let vector = try b.replica.versionVector()
        for _ in 0..<1_000 {
            #expect(dialer.send(.have(vector), to: &listener).isEmpty)
        }
        #expect(listener.bufferedBundleBytes == 0)
        #expect(!listener.isClosed)
    }
}
