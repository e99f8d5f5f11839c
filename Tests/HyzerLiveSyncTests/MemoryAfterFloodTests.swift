import Foundation
import HyzerBench
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import NIOConcurrencyHelpers
import Testing

extension LiveSyncTests {
    /// `hyzer-peer serve` as its own process, flooded three times by a member sending what a member
    /// may: each time 150,000 new ops (about 6 MiB) in bundles of 2 MiB (the debug build on a loaded
    /// machine ingests an 8 MiB bundle more slowly than a peer waits). Its resident memory
    /// (/proc/PID/status) comes back after the floods (docs/performance.md, "Memory after a flood").
    @Suite struct MemoryAfterFloodTests {
        static let opsPerFlood = 150_000

        /// Gives `member` `opsPerFlood` new ops of a new author (a junk author, as far as serve
        /// can tell), cut into signed segments of 1,000.
        static func addFlood(to member: Replica, _ index: Int) throws {
            let keys = SigningKeyPair(seed: Array(repeating: UInt8(40 + index), count: 32))
            var ops = BenchData.ops(keys: keys, count: opsPerFlood)
            for end in stride(from: 999, to: ops.count, by: 1_000) {
                ops[end] = ops[end].with(signature: keys.sign(SignedOp.signedMessage(hash: ops[end].hash)))
            }
            let segments = stride(from: 0, to: ops.count, by: 1_000).map { AuthorSegment(ops: Array(ops[$0..<($0 + 1_000)])) }
            _ = try member.ingest(segments)
        }

        @Test func serveGivesBackWhatThreeFloodsTook() async throws {
            let world = LiveWorld()
            _ = try world.replica("server", owner: "Ann")
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let member = try world.replica("member", owner: "Ben")
            // A first small sync brings serve to its working state.
            let warm = try world.replica("warm", owner: "Warm")
            #expect(try await world.syncOnce(warm, with: serve.running).failure == nil)
            try await Task.sleep(for: .seconds(1))
            let before = try #require(serve.residentBytes)
            let peak = NIOLockedValueBox(before)
            let sampling = Task {
                while !Task.isCancelled {
                    let resident = serve.residentBytes ?? 0
                    peak.withLockedValue { $0 = max($0, resident) }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            var afterEach: [Int] = []
            for flood in 0..<3 {
                try Self.addFlood(to: member, flood)
                var configuration = SyncEngine.Configuration()
                configuration.bundleBytesMax = 2 << 20
                let outcome = try await PeerDialer.connectAndRun(
                    serve.address, replica: member, group: world.group, mode: .oneShot, logger: world.logger, configuration: configuration)
                #expect(outcome.failure == nil, "\(outcome.failure?.description ?? "")")
                #expect(outcome.opsSent >= Self.opsPerFlood)
                try await Task.sleep(for: .seconds(1))
                afterEach.append(try #require(serve.residentBytes))
            }
            sampling.cancel()
            let after = try #require(afterEach.last)
            let mebibytes = { (bytes: Int) in "\(bytes >> 20) MiB" }
            print(
                "flood: serve resident \(mebibytes(before)) before, peak \(mebibytes(peak.withLockedValue { $0 })), "
                    + "after each flood \(afterEach.map(mebibytes).joined(separator: ", "))")
            #expect(
                after - before < 50 << 20,
                "after three floods serve holds \(mebibytes(after)), \(mebibytes(after - before)) more than the \(mebibytes(before)) before them"
            )
        }
    }
}
