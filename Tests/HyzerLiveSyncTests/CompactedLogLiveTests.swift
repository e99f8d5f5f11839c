import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import Testing

extension LiveSyncTests {
    /// docs/store.md, "Signature compaction": a store that keeps few of its ops' signatures
    /// still sends every op over real loopback TCP in bundles within the bound, each segment
    /// ending at a signed op, and both stores verify.
    @Suite struct CompactedLogLiveTests {
        @Test func aLongCompactedLogCrossesLoopbackTCPAndBothStoresVerify() async throws {
            let world = LiveWorld()
            let a = try world.replica("a", owner: "Ann")
            let b = try world.replica("b")
            for n in 0..<1_500 { try a.addPlayer(name: "Player \(n) " + String(repeating: "x", count: 180)) }
            let bundleBytesMax = 256 * 1024  // the log is about 320 KiB: it crosses in several bundles
            let server = try await world.serve(a) { $0.configuration.bundleBytesMax = bundleBytesMax }
            defer { server.stop() }
            let outcome = try await world.syncOnce(b, with: server)
            #expect(outcome.failure == nil)
            #expect(outcome.opsReceived == 1_502)
            #expect(try b.versionVector().entry(a.author) == a.versionVector().entry(a.author))
            for replica in [a, b] {
                let report = try replica.verify()
                #expect(report.isIntact, "\(report.problems)")
                #expect(report.signaturesChecked < 12, "\(report.signaturesChecked) signatures kept")
            }
        }
    }
}
