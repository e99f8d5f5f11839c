import Foundation
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// docs/sync-protocol.md, "The engine": the store work an engine asked for is a value of its
/// state (`SyncEngine.Outstanding`), answered once. An answer nobody asked for would stop the
/// process in the engine, so the driver refuses such store work before doing any of it, with a
/// typed failure (`ConnectionDriver.Misuse`).
@Suite struct OutstandingWorkTests {
    /// The frames a driver writes among `outputs`.
    static func writes(_ outputs: [ConnectionDriver.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .write(let bytes) = $0 { bytes } else { nil } }
    }

    /// Ben's phone dials Ann's, which holds ops Ben lacks. Frames cross, Ben's each taken and
    /// then performed as the NIO shell does (`take`, then `perform`), until Ben's driver takes
    /// the frame that completes Ann's bundle: the `Taken` whose store work is the ingest.
    static func takeAnnsBundle(into ben: inout ConnectionDriver, from ann: inout ConnectionDriver) throws -> ConnectionDriver.Taken {
        var toAnn = writes(try ben.start(now: 0))
        while !toAnn.isEmpty {
            var toBen: [[UInt8]] = []
            for frame in toAnn { toBen += writes(try ann.receive(frame: frame, now: 0)) }
            toAnn = []
            for frame in toBen {
                let taken = ben.take(frame: frame, now: 0)
                if case .ingest = ben.engine.outstanding { return taken }
                toAnn += writes(try ben.perform(taken))
            }
        }
        throw TakenNotFound()
    }

    struct TakenNotFound: Error {}

    @Test func storeWorkNobodyAskedForIsRefusedWithATypedFailure() throws {
        let ann = try Peer("ann", owner: "Ann", keySeed: 93)
        let ben = try Peer("ben", owner: "Ben", keySeed: 94)
        var dialer = try EngineSide(ben, role: .dialer, mode: .oneShot).driver
        var listener = try EngineSide(ann, role: .listener, mode: .oneShot).driver
        #expect(dialer.engine.outstanding == .nothing)
        let taken = try Self.takeAnnsBundle(into: &dialer, from: &listener)
        #expect(taken.needsStore)
        // The engine awaits the ingest and nothing else: a delta or holdings now answer nothing.
        #expect(!dialer.engine.awaits(.prepareDelta(above: VersionVector())))
        #expect(!dialer.engine.awaits(.readHoldings))
        _ = try dialer.perform(taken)
        let received = dialer.counts.opsReceived
        #expect(received > 0 && dialer.counts.bundlesReceived == 1)
        #expect(dialer.engine.outstanding == .nothing, "answered")

        // The same ingest again answers nothing the engine asked: refused, none of it done.
        #expect(throws: ConnectionDriver.Misuse.storeWorkNotAsked(outstanding: .nothing)) { try dialer.perform(taken) }
        #expect(dialer.isOver)
        #expect(dialer.counts.opsReceived == received && dialer.counts.bundlesReceived == 1)
        #expect(try dialer.receive(frame: [0], now: 0).isEmpty, "an over driver takes nothing more")
    }

    @Test func anEngineAwaitsNothingUntilItAsks() throws {
        let ann = try Peer("ann", owner: "Ann", keySeed: 95)
        let engine = try EngineSide(ann, role: .listener, mode: .live).engine
        #expect(engine.outstanding == .nothing)
        #expect(!engine.awaits(.readHoldings))
        #expect(!engine.awaits(.prepareDelta(above: VersionVector())))
    }
}
