import Foundation
import HyzerDomain
import HyzerKit
import Logging
import Testing

@testable import HyzerSync

/// docs/domain.md, "Round receipts": what follows an ingest is one step, `Replica.afterIngest`,
/// on every path that ingests. A finish that arrives through a live connection, a one-shot
/// connection, `sync --peer`'s exchange, a folder sync or a bundle import yields this device's
/// receipt of the round.
@Suite struct AfterIngestTests {
    /// Ann's phone organizes a round of Ann and Ben and finishes it; Ben's phone, which owns
    /// Ben, has not received the round.
    struct FinishedRound {
        let ann: Peer
        let ben: Peer
        let round: UUID

        init() throws {
            ann = try Peer("ann", owner: "Ann", keySeed: 91)
            ben = try Peer("ben", owner: "Ben", keySeed: 92)
            try ann.replica.ingest(ben.replica.delta(above: ann.replica.versionVector()))
            round = try ann.replica.startRound(course: "Morley Field", players: ["Ann", "Ben"]).id
            _ = try ann.replica.finishRound(round.lowercased, force: true)
        }

        /// The devices whose receipt of the round `peer` holds.
        func receipts(on peer: Peer) throws -> [AuthorID] {
            try peer.replica.receipts(round: round).map(\.device)
        }
    }

    @Test func aFinishArrivingOnALiveConnectionYieldsTheReceipt() throws {
        let played = try FinishedRound()
        var pair = try EnginePair(dialer: played.ben, listener: played.ann, mode: .live)
        try pair.start()
        #expect(try played.receipts(on: played.ben) == [played.ben.author], "\(pair.report)")
        // It goes out as any change of Ben's store.
        try pair.storeChanged(at: 0, now: 0)
        #expect(try played.receipts(on: played.ann) == [played.ben.author], "\(pair.report)")
    }

    @Test func aFinishArrivingOnAOneShotConnectionYieldsTheReceipt() throws {
        let played = try FinishedRound()
        var pair = try EnginePair(dialer: played.ben, listener: played.ann, mode: .oneShot)
        try pair.start()
        #expect(pair.sides[0].finished && pair.sides[1].finished, "\(pair.report)")
        #expect(try played.receipts(on: played.ben) == [played.ben.author])
    }

    /// Its bounds are a day (`ListenerOpener.patient`); the suite's time limit is what ends it
    /// if it ever hangs.
    @Test(.timeLimit(.minutes(30))) func aFinishArrivingInAPeerSyncYieldsTheReceipt() async throws {
        let played = try FinishedRound()
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        var sync = PeerSync(replica: played.ben.replica, logger: quiet)
        sync.configuration = ListenerOpener.patient
        let outcome = try await sync.sync(ListenerOpener(replica: played.ann.replica, logger: quiet))
        #expect(outcome.failure == nil && outcome.opsReceived > 0)
        #expect(try played.receipts(on: played.ben) == [played.ben.author])
    }

    @Test func aFinishArrivingThroughTheFolderYieldsTheReceiptWrittenInTheSameSync() throws {
        let played = try FinishedRound()
        let shared = SharedDirectory()
        _ = try played.ann.sync(shared)
        let report = try played.ben.sync(shared)
        #expect(report.finishesIngested == 1)
        #expect(try played.receipts(on: played.ben) == [played.ben.author])
        // Ben's sync wrote its receipt with the rest: Ann's next sync reads it.
        _ = try played.ann.sync(shared)
        #expect(try played.receipts(on: played.ann) == [played.ben.author])
    }

    @Test func aFinishArrivingInAnImportedBundleYieldsTheReceipt() throws {
        let played = try FinishedRound()
        let report = try BundleFiles.import(try played.ann.export(), into: played.ben.replica)
        #expect(report.finishesApplied == 1)
        #expect(try played.receipts(on: played.ben) == [played.ben.author])
        #expect(try BundleFiles.import(try played.ann.export(), into: played.ben.replica).opsApplied == 0)
        #expect(try played.receipts(on: played.ben) == [played.ben.author], "signed once")
    }

    @Test func anIngestWithNoFinishSignsNothing() throws {
        let played = try FinishedRound()
        #expect(try played.ben.replica.afterIngest(finishesApplied: 0) == 0)
        try played.ben.replica.ingest(played.ann.replica.delta(above: played.ben.replica.versionVector()))
        #expect(try played.receipts(on: played.ben).isEmpty, "ingest alone signs nothing: the step after it does")
        #expect(try played.ben.replica.afterIngest(finishesApplied: 1) == 1)
    }
}

/// Opens in-memory links whose far end a listener on `replica` serves, one per open.
private struct ListenerOpener: ByteLinkOpener {
    let replica: Replica
    let logger: Logger

    /// Bounds no starved test task reaches, a day each: amid the library's suites on two cores
    /// a task's every hop waits its turn behind hundreds of tests on the concurrency pool, so a
    /// handshake that takes milliseconds alone took longer than 600 s in a full run, and this
    /// test is about receipts, not time.
    static let patient: SyncEngine.Configuration = {
        let day: UInt64 = 86_400_000
        var configuration = SyncEngine.Configuration()
        configuration.handshakeTimeoutMilliseconds = day
        configuration.idleMilliseconds = day
        configuration.deadMilliseconds = day
        configuration.writeTimeoutMilliseconds = day
        return configuration
    }()

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        let (near, far) = InMemoryLink.pair()
        var listener = PeerConnection(
            replica: replica, group: testGroup, role: .listener, mode: .live, logger: logger, signals: ConnectionSignals(),
            budget: BundleBudget())
        listener.configuration = Self.patient
        let listening = Task { [listener] in await listener.run(over: far) }
        let result = await body(near)
        await near.close()
        _ = await listening.value
        return result
    }
}
