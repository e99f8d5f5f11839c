import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// The exchange after the handshake, message by message.
@Suite struct SyncSessionTests {
    let author = AuthorID(bytes: [UInt8](repeating: 1, count: 32))!
    var one: VersionVector { VersionVector([author: 1]) }
    var two: VersionVector { VersionVector([author: 2]) }

    @Test func oneShotSendsItsDeltaAndDoneAndFinishesOnDoneAndHave() {
        var session = SyncSession(mode: .oneShot)
        #expect(session.start(localVector: two) == [.send(.hello(two, live: false))])
        #expect(session.hear(helloOf: one, live: true) == [.sendDelta(above: one), .send(.done)])
        #expect(session.mode == .oneShot, "live only when both ask")
        #expect(session.receive(.bundlePart(bytes: [1, 2], final: false)) == [.receivePart([1, 2], final: false)])
        #expect(session.receive(.bundlePart(bytes: [3], final: true)) == [.receivePart([3], final: true)])
        #expect(session.receive(.done) == [.acknowledge])
        #expect(session.receive(.have(two)) == [.finish])
        #expect(session.receive(.have(two)).isEmpty, "closed")
    }

    @Test func theHaveMayComeBeforeTheDone() {
        var session = SyncSession(mode: .oneShot)
        _ = session.hear(helloOf: one, live: false)
        #expect(session.receive(.have(two)).isEmpty)
        #expect(session.receive(.done) == [.acknowledge, .finish])
    }

    @Test func liveSessionsPushChangesThePeerLacks() {
        var session = SyncSession(mode: .live)
        #expect(session.hear(helloOf: one, live: true) == [.sendDelta(above: one)])
        #expect(session.isLive)
        session.deltaSent(upTo: two)
        #expect(session.localChanged(localVector: two).isEmpty, "the peer holds it already")
        let three = VersionVector([author: 3])
        #expect(session.localChanged(localVector: three) == [.sendDelta(above: two)])
        #expect(session.ingested(senderVector: three, acknowledged: three) == [.send(.have(three))])
        #expect(session.receive(.heartbeat).isEmpty)
        #expect(session.receive(.done) == [.fail(.protocolViolation(.unexpectedDone))])
    }

    /// What the peer holds moves (and a shell reports it) only when something shows more; a
    /// delta that brings the peer up to a vector takes that vector whole.
    @Test func whatThePeerHoldsMovesOnlyWhenSomethingShowsMore() {
        var session = SyncSession(mode: .live)
        _ = session.hear(helloOf: one, live: true)
        let start = session.peerHoldsRevision
        _ = session.receive(.have(VersionVector()))
        _ = session.receive(.have(one))
        #expect(session.peerHoldsRevision == start, "nothing new")
        _ = session.receive(.have(two))
        #expect(session.peerHolds == two)
        #expect(session.peerHoldsRevision != start)
        let told = session.peerHoldsRevision
        _ = session.ingested(senderVector: one, acknowledged: two)
        #expect(session.peerHoldsRevision == told, "the sender held less than the peer is known to")
        let other = AuthorID(bytes: [UInt8](repeating: 2, count: 32))!
        let three = VersionVector([author: 3, other: 1])
        session.deltaSent(upTo: three)
        #expect(session.peerHolds == three)
        #expect(session.peerHoldsRevision != told)
        // A delta up to a vector that does not cover what the peer holds adds what it shows.
        session.deltaSent(upTo: VersionVector([author: 2, AuthorID(bytes: [UInt8](repeating: 3, count: 32))!: 4]))
        #expect(session.peerHolds[author] == 3 && session.peerHolds[other] == 1 && session.peerHolds.entries.count == 3)
    }

    @Test func aHaveCarriesOnlyWhatChangedAndThePeerRebuildsTheWholeVector() throws {
        let (x, y, z) = (author, AuthorID(bytes: [UInt8](repeating: 2, count: 32))!, AuthorID(bytes: [UInt8](repeating: 3, count: 32))!)
        var sender = SyncSession(mode: .live)
        var receiver = SyncSession(mode: .live)
        let hello = VersionVector([x: 5, y: 3])
        _ = sender.start(localVector: hello)
        _ = sender.hear(helloOf: VersionVector(), live: true)
        _ = receiver.start(localVector: VersionVector())
        _ = receiver.hear(helloOf: hello, live: true)
        let after = VersionVector([x: 5, y: 4, z: 1])
        let acknowledged = sender.ingested(senderVector: VersionVector(), acknowledged: after)
        #expect(acknowledged == [.send(.have(VersionVector([y: 4, z: 1])))], "x did not change")
        let have = try #require(acknowledged.first?.message)
        _ = receiver.receive(have)
        #expect(receiver.peerReported == after)
        #expect(sender.ingested(senderVector: VersionVector(), acknowledged: after) == [.send(.have(VersionVector()))])
    }

    /// An entry left out of a `have` still counts as said again: where the receiver's view of
    /// the sender moved to another branch of an author (its own delta's vector), the sender's
    /// unchanged entry is taken back, exactly as when every `have` carried the whole vector.
    @Test func anUnchangedEntryIsReassertedAsAWholeHaveWould() {
        let branchA = VersionVector(entries: [author: .init(sequence: 4, hashPrefix: [1, 1, 1, 1, 1, 1, 1, 1])])
        let branchB = VersionVector(entries: [author: .init(sequence: 4, hashPrefix: [2, 2, 2, 2, 2, 2, 2, 2])])
        let other = AuthorID(bytes: [UInt8](repeating: 9, count: 32))!
        var grown = branchA
        grown[other] = 1
        func receiverAfter(_ have: SyncMessage) -> VersionVector {
            var receiver = SyncSession(mode: .live)
            _ = receiver.hear(helloOf: branchA, live: true)
            receiver.deltaSent(upTo: branchB)
            _ = receiver.receive(have)
            return receiver.peerHolds
        }
        var sender = SyncSession(mode: .live)
        _ = sender.start(localVector: branchA)
        let changed = sender.have(reporting: grown)
        #expect(changed == .have(VersionVector([other: 1])))
        #expect(receiverAfter(changed) == receiverAfter(.have(grown)))
        #expect(receiverAfter(changed).entry(author) == branchA.entry(author))
    }

    @Test func messagesOutOfOrderFail() {
        var session = SyncSession(mode: .oneShot)
        #expect(session.receive(.have(one)) == [.fail(.protocolViolation(.haveBeforeHello))])
        session = SyncSession(mode: .oneShot)
        #expect(session.receive(.bundlePart(bytes: [], final: true)) == [.fail(.protocolViolation(.bundleBeforeHello))])
        session = SyncSession(mode: .oneShot)
        #expect(session.receive(.done) == [.fail(.protocolViolation(.unexpectedDone))])
        session = SyncSession(mode: .oneShot)
        _ = session.hear(helloOf: one, live: false)
        _ = session.receive(.done)
        #expect(session.receive(.done) == [.fail(.protocolViolation(.unexpectedDone))], "a second done")
        session = SyncSession(mode: .live)
        #expect(session.receive(.bye(reason: "bye")) == [.fail(.peerClosed(reason: "bye"))])
    }

    @Test func messagesRoundTripThroughTheirEncoding() throws {
        let messages: [SyncMessage] = [
            .hello(two, live: true), .bundlePart(bytes: [1, 2, 3], final: true), .have(one), .done, .bye(reason: "why"), .heartbeat,
            .heartbeatWithDigest(HoldingsDigest.of(two)), .holds(two),
        ]
        for message in messages { #expect(try SyncMessage(decoding: message.encoded()) == message) }
        #expect(SyncMessage.heartbeat.encoded() == [6])
        #expect(throws: ByteDecodingError.self) { try SyncMessage(decoding: [6, 0]) }
        #expect(throws: ByteDecodingError.self) { try SyncMessage(decoding: [7]) }
        #expect(throws: ByteDecodingError.self) { try SyncMessage(decoding: [6] + [UInt8](repeating: 0, count: 9)) }
        #expect(SyncMessage.heartbeatWithDigest(1).encoded() == [6, 0, 0, 0, 0, 0, 0, 0, 1])
    }

    // MARK: Live connections heal (docs/sync-protocol.md)

    /// A live session that sent `two` to a peer that said it held `one`, and whose heartbeat
    /// carried that belief.
    private func believer() -> SyncSession {
        var session = SyncSession(mode: .live)
        _ = session.start(localVector: two)
        _ = session.hear(helloOf: one, live: true)
        session.deltaSent(upTo: two, bundles: 1)
        #expect(session.heartbeat() == .heartbeatWithDigest(HoldingsDigest.of(two)))
        return session
    }

    @Test func aHeartbeatCarriesTheBeliefOnlyWhenLive() {
        var oneShot = SyncSession(mode: .oneShot)
        _ = oneShot.hear(helloOf: one, live: true)
        #expect(oneShot.heartbeat() == .heartbeat, "an older build's one-shot sync stays byte-identical")
        #expect(believer().peerHolds == two)
    }

    @Test func aBeliefThatMatchesWhatTheSideSaidCostsNoStoreRead() {
        var peer = SyncSession(mode: .live)
        _ = peer.start(localVector: two)
        _ = peer.hear(helloOf: one, live: true)
        #expect(peer.receive(.heartbeatWithDigest(HoldingsDigest.of(two))).isEmpty)
        #expect(peer.receive(.heartbeatWithDigest(HoldingsDigest.of(one))) == [.readHoldings])
        #expect(peer.receive(.heartbeat).isEmpty, "an older build's empty heartbeat")
    }

    @Test func aWrongBeliefIsAnsweredWithTheHoldingsOnlyWithRoomAside() {
        var peer = SyncSession(mode: .live)
        _ = peer.start(localVector: one)
        _ = peer.hear(helloOf: one, live: true)
        #expect(peer.receive(.heartbeatWithDigest(HoldingsDigest.of(two))) == [.readHoldings])
        #expect(peer.holdingsRead(Holdings(vector: one, hasRoomAside: false)).isEmpty, "at a junk cap it would evict again")
        #expect(peer.holdingsRead(Holdings(vector: two, hasRoomAside: true)).isEmpty, "the belief is right")
        #expect(peer.holdingsRead(Holdings(vector: one, hasRoomAside: true)) == [.send(.holds(one))])
    }

    /// A peer holding ops aside for its clock never reports them in a `have`, so the believer's
    /// digest differs from what it said at every heartbeat: the holdings are read once, and again
    /// only after the store changed (where a junk cap may have evicted). So is a wrong belief a
    /// peer at a junk cap cannot answer: only a change of the store makes room.
    @Test func aBeliefReadForIsNotReadAgainUntilTheStoreChanges() {
        var peer = SyncSession(mode: .live)
        _ = peer.start(localVector: one)
        _ = peer.hear(helloOf: one, live: true)
        let held = HoldingsDigest.of(two)
        #expect(peer.receive(.heartbeatWithDigest(held)) == [.readHoldings])
        #expect(peer.holdingsRead(Holdings(vector: two, hasRoomAside: true)).isEmpty, "the belief is right")
        #expect(peer.receive(.heartbeatWithDigest(held)).isEmpty, "the same belief: no read")
        _ = peer.localChanged(localVector: one)
        #expect(peer.receive(.heartbeatWithDigest(held)) == [.readHoldings], "the store changed")
        #expect(peer.holdingsRead(Holdings(vector: two, hasRoomAside: true)).isEmpty)
        _ = peer.ingested(senderVector: one, acknowledged: one)
        #expect(peer.receive(.heartbeatWithDigest(held)) == [.readHoldings], "an ingest may have evicted")
        #expect(!peer.awaitsRoomAside)
        #expect(peer.holdingsRead(Holdings(vector: one, hasRoomAside: false)).isEmpty, "at a cap")
        #expect(peer.awaitsRoomAside)
        #expect(peer.receive(.heartbeatWithDigest(held)).isEmpty, "a cap holds until the store changes")
        _ = peer.localChanged(localVector: one)
        #expect(!peer.awaitsRoomAside, "releasing held ops or an ingest may have made room")
        #expect(peer.receive(.heartbeatWithDigest(held)) == [.readHoldings])
    }

    @Test func holdingsLowerTheBeliefAndTheDeltaFollows() {
        var session = believer()
        #expect(session.receive(.holds(one)) == [.sendDelta(above: one)])
        #expect(session.peerHolds == one, "lowered")
    }

    @Test func holdingsThatMayMissABundleInFlightAreIgnored() {
        var session = believer()
        session.deltaSent(upTo: VersionVector([author: 3]), bundles: 1)
        #expect(session.receive(.holds(one)).isEmpty)
        #expect(session.peerHolds == VersionVector([author: 3]))
        session.deltaSent(upTo: VersionVector([author: 3]), bundles: 0)
        _ = session.heartbeat()
        session.deltaSent(upTo: VersionVector([author: 3]), bundles: 0)
        #expect(session.receive(.holds(one)) == [.sendDelta(above: one)], "an empty delta is nothing in flight")
    }

    @Test func holdingsOutsideALiveExchangeAreAViolation() {
        var session = SyncSession(mode: .oneShot)
        _ = session.hear(helloOf: one, live: false)
        #expect(session.receive(.holds(one)) == [.fail(.protocolViolation(.unexpectedHolds))])
    }
}

extension SyncSession.Action {
    /// The message of a `send`, or nil.
    var message: SyncMessage? { if case .send(let message) = self { message } else { nil } }

    /// Whether the action sends a reconcile step.
    var sendsReconcileStep: Bool { message.map { if case .reconcile = $0 { true } else { false } } ?? false }
}

extension SyncSession {
    /// Plays a peer holding `vector` and asking for `live`: its hello, then its reconcile steps
    /// answering this session's, until the two know each other's vector (docs/sync-protocol.md,
    /// "Reconciliation"). Starts this session on an empty vector unless it started. Returns what
    /// this session did on the last message it heard, its own reconcile steps left out.
    mutating func hear(helloOf vector: VersionVector, live: Bool) -> [Action] {
        if !isStarted { _ = start(localVector: VersionVector()) }
        guard let hello = helloOpening else { return receive(.hello(vector, live: live)) }
        var peer = SyncSession(mode: live ? .live : .oneShot)
        var toSelf = peer.start(localVector: vector).compactMap(\.message)
        var toPeer: [SyncMessage] = [hello]
        var last: [Action] = []
        while !toSelf.isEmpty || !toPeer.isEmpty {
            for message in toPeer { toSelf += peer.receive(message).filter(\.sendsReconcileStep).compactMap(\.message) }
            toPeer = []
            for message in toSelf {
                let actions = receive(message)
                toPeer += actions.filter(\.sendsReconcileStep).compactMap(\.message)
                last = actions.filter { !$0.sendsReconcileStep }
            }
            toSelf = []
        }
        return last
    }
}
