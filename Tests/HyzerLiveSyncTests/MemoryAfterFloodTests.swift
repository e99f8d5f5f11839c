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
    /// `hyzer-peer serve` as its own process, flooded three times by members sending what a member
    /// may: its log in bundles of the largest size a connection takes (8 MiB). Its resident memory
    /// (/proc/PID/status) comes back after each flood (docs/performance.md, "Memory after a flood").
    @Suite struct MemoryAfterFloodTests {
        /// Ops in one flood: about 24 MiB of bundles, three of the largest.
        static let opsPerFlood = 600_000

        /// A member holding a log of `opsPerFlood` ops its store received from an author of its
        /// own (a junk author, as far as serve can tell), cut into signed segments of 1,000.
        static func floodingMember(_ world: LiveWorld, _ index: Int) throws -> Replica {
            let member = try world.replica("member\(index)", owner: "Member \(index)")
            let keys = SigningKeyPair(seed: Array(repeating: UInt8(40 + index), count: 32))
            var ops = BenchData.ops(keys: keys, count: opsPerFlood)
            for end in stride(from: 999, to: ops.count, by: 1_000) {
                ops[end] = ops[end].with(signature: keys.sign(SignedOp.signedMessage(hash: ops[end].hash)))
            }
            let segments = stride(from: 0, to: ops.count, by: 1_000).map { AuthorSegment(ops: Array(ops[$0..<($0 + 1_000)])) }
            _ = try member.ingest(segments)
            return member
        }

        @Test func serveGivesBackWhatThreeFloodsTook() async throws {
            let world = LiveWorld()
            _ = try world.replica("server", owner: "Ann")
            let serve = try ServeProcess(world, store: "server")
            defer { serve.stop() }
            let members = try (0..<3).map { try Self.floodingMember(world, $0) }
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
            for member in members {
                let outcome = try await world.syncOnce(member, with: serve.running)
                #expect(outcome.failure == nil, "\(outcome.failure?.description ?? "")")
                #expect(outcome.opsSent > Self.opsPerFlood)
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
