import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// A side of an engine test: the shipped `ConnectionDriver` over a real replica.
struct EngineSide {
    var driver: ConnectionDriver
    let peer: Peer
    var inbox: [[UInt8]] = []
    var failure: SyncFailure?
    var finished = false

    init(
        _ peer: Peer, role: Handshake.Role, mode: SyncSession.Mode, budget: BundleBudget = BundleBudget(),
        configuration: SyncEngine.Configuration = .init(), group: GroupMembership = testGroup, now: UInt64 = 0
    ) throws {
        self.peer = peer
        driver = ConnectionDriver(
            replica: peer.replica, group: group, role: role, mode: mode, ephemeral: KeyExchange(), budget: budget,
            configuration: configuration, now: now)
    }

    /// The driver's engine, for tests that drive an engine by hand.
    var engine: SyncEngine { driver.engine }
    var opsIngested: Int { driver.counts.opsReceived }
    var bundlesIngested: Int { driver.counts.bundlesReceived }
    var isOver: Bool { failure != nil || finished }
}

/// Two drivers back to back, doing their store work on real replicas, with time in the test's
/// hands: the simulator's job in miniature.
struct EnginePair {
    var sides: [EngineSide]

    init(
        dialer: Peer, listener: Peer, mode: SyncSession.Mode = .oneShot, configuration: SyncEngine.Configuration = .init(),
        group: GroupMembership = testGroup
    ) throws {
        sides = [
            try EngineSide(dialer, role: .dialer, mode: mode, configuration: configuration, group: group),
            try EngineSide(listener, role: .listener, mode: mode, configuration: configuration, group: group),
        ]
    }

    /// How each side ended, for failure messages.
    var report: String { sides.map { $0.failure?.description ?? ($0.finished ? "finished" : "open") }.joined(separator: "; ") }

    mutating func start(now: UInt64 = 0) throws {
        try handle(sides[0].driver.start(now: now), by: 0)
        try deliver(now: now)
    }

    /// Delivers frames both ways until none is left in flight.
    mutating func deliver(now: UInt64) throws {
        while let index = sides.indices.first(where: { !sides[$0].inbox.isEmpty }) {
            let frame = sides[index].inbox.removeFirst()
            guard !sides[index].isOver else { continue }
            try handle(sides[index].driver.receive(frame: frame, now: now), by: index)
        }
    }

    /// Advances time on both sides to `now`.
    mutating func tick(now: UInt64) throws {
        for index in sides.indices { try handle(sides[index].driver.tick(now: now), by: index) }
        try deliver(now: now)
    }

    /// Side `index`'s store changed: its driver pushes what the peer lacks, then frames cross.
    mutating func storeChanged(at index: Int, now: UInt64) throws {
        try handle(sides[index].driver.storeChanged(now: now), by: index)
        try deliver(now: now)
    }

    private mutating func handle(_ outputs: [ConnectionDriver.Output], by index: Int) throws {
        for output in outputs {
            switch output {
            case .write(let bytes): sides[1 - index].inbox.append(bytes)
            case .close(let failure): sides[index].failure = failure
            case .finish: sides[index].finished = true
            }
        }
    }
}

/// The test's hand-driven dialer against a listener engine: a real handshake, then whatever
/// messages the test wants, sealed as a genuine member would.
struct HandDialer {
    var sender: SecretStream.Sender
    var receiver: SecretStream.Receiver
    /// What the engine said in the last step, opened.
    var heard: [SyncMessage] = []

    /// Completes the handshake as `peer` against `engine`; returns the dialer and the engine's first messages.
    init(as peer: Peer, against engine: inout SyncEngine, now: UInt64 = 0) throws {
        let replica = peer.replica
        var handshake = Handshake(role: .dialer, author: replica.author, sign: { replica.signature(of: $0) }, group: testGroup)
        #expect(engine.start(now: now).isEmpty, "the listener speaks second")
        guard let hello = handshake.start() else { throw HandshakeTestError.unexpected }
        let reply = try #require(Self.writes(engine.receive(frame: hello, now: now)).first)
        guard case .send(let identity) = try handshake.receive(reply) else { throw HandshakeTestError.unexpected }
        let proofAndHeader = Self.writes(engine.receive(frame: identity, now: now))
        try #require(proofAndHeader.count == 2)
        guard case .established(let keys, nil) = try handshake.receive(proofAndHeader[0]) else { throw HandshakeTestError.unexpected }
        sender = SecretStream.Sender(key: keys.sendKey)
        receiver = try #require(SecretStream.Receiver(key: keys.receiveKey, header: proofAndHeader[1]))
        hear(engine.receive(frame: sender.header, now: now))
    }

    /// Seals `message`, hands it to `engine`, and opens what the engine wrote back. The
    /// engine's side has no delta to send: a `prepareDelta` is answered with no bundles.
    mutating func send(_ message: SyncMessage, to engine: inout SyncEngine, now: UInt64 = 0) -> [SyncEngine.Action] {
        var actions = engine.receive(frame: sender.seal(message.encoded()), now: now)
        if actions.contains(where: { if case .prepareDelta = $0 { true } else { false } }) {
            actions += engine.deltaPrepared([], upTo: VersionVector(), now: now)
        }
        hear(actions)
        return actions
    }

    /// Sends the hello of a side holding `vector`, then answers the engine's reconcile steps
    /// (docs/sync-protocol.md, "Reconciliation") until both know each other's vector; returns every
    /// action the engine took meanwhile, and `heard` holds all it said after its hello.
    mutating func greet(_ vector: VersionVector, live: Bool, to engine: inout SyncEngine, now: UInt64 = 0) throws -> [SyncEngine.Action] {
        var reconciliation = Reconciliation(local: vector)
        let hello = try #require(engineHello)
        var steps = try reconciliation.greeted(hello.summaries, wholeFingerprint: hello.fingerprint)
        var actions = send(.hello(vector, live: live), to: &engine, now: now)
        var said = heard
        while true {
            for mine in steps {
                actions += send(.reconcile(mine), to: &engine, now: now)
                said += heard
            }
            // The engine's steps arrive in order: the earliest not yet answered is next.
            guard !reconciliation.isComplete, let index = said.firstIndex(where: { $0.reconcileStep != nil }) else { break }
            steps = try reconciliation.receive(said.remove(at: index).reconcileStep!)
        }
        heard = said
        return actions
    }

    /// The whole fingerprint and summaries the engine's hello carried (heard once the stream opened).
    private(set) var engineHello: (fingerprint: UInt64, summaries: [RangeSummary])?

    /// Opens the engine's writes among `actions` into `heard`.
    mutating func hear(_ actions: [SyncEngine.Action]) {
        heard = Self.writes(actions).compactMap { receiver.open($0).flatMap { try? SyncMessage(decoding: $0) } }
        for message in heard {
            if case .hello(_, _, let fingerprint, let summaries) = message { engineHello = (fingerprint, summaries) }
        }
    }

    static func writes(_ actions: [SyncEngine.Action]) -> [[UInt8]] {
        actions.compactMap { if case .write(let bytes) = $0 { bytes } else { nil } }
    }
}

enum HandshakeTestError: Error { case unexpected }

extension SyncMessage {
    /// The step of a `reconcile`, if it is one.
    var reconcileStep: ReconcileStep? { if case .reconcile(let step) = self { step } else { nil } }
}

extension [SyncEngine.Action] {
    /// The failure the engine closed with, if any.
    var closedWith: SyncFailure? {
        for action in self { if case .close(let failure) = action { return failure } }
        return nil
    }

    var ingests: [DeltaBundle] { compactMap { if case .ingest(let bundle) = $0 { bundle } else { nil } } }
}
