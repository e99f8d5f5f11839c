import HyzerSimulation
import Testing

/// A live connection through a partition, on the shipped engine: the heartbeats stop, each side
/// declares the other dead within the bound, the dialer reconnects within seconds of the heal,
/// and the replicas converge (docs/sync-protocol.md, heartbeats; docs/simulation.md).
@Suite struct PartitionTests {
    /// One trace line: simulated milliseconds and the text.
    struct Line {
        let milliseconds: UInt64
        let text: String

        init?(_ line: String) {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let clock = parts.first?.split(whereSeparator: { $0 == ":" || $0 == "." }).compactMap { UInt64($0) } ?? []
            guard parts.count == 2, clock.count == 4 else { return nil }
            milliseconds = ((clock[0] * 60 + clock[1]) * 60 + clock[2]) * 1_000 + clock[3]
            text = parts[1]
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aPartitionedPeerIsDeclaredDeadAndTheLinkComesBack(seed: UInt64) throws {
        let simulation = Simulation(request: SimulationRequest(seed: seed, scenario: .partition), keepTrace: true)
        let result = simulation.run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        let lines = simulation.traceLines.compactMap(Line.init)
        let note = try #require(lines.first { $0.text.hasPrefix("partition ") }, "the scenario draws one partition")
        let seconds = try #require(note.text.split(separator: " ").last.flatMap { UInt64($0.dropLast()) })
        let begins = note.milliseconds
        let ends = begins + seconds * 1_000

        // Dead within the bound: 15 s of silence, noticed at the next one-second tick.
        let dead = try #require(lines.first { $0.milliseconds >= begins && $0.text.contains("it is gone") })
        #expect(dead.milliseconds - begins <= 16_000, "declared dead \(dead.milliseconds - begins) ms into the partition")
        #expect(dead.milliseconds < ends)

        // Back within seconds of the heal: a failed attempt times out in 1 s and the backoff is at
        // most 2.4 s; then the handshake's four one-way trips of at most 150 ms.
        let reopened = try #require(lines.first { $0.milliseconds >= ends && $0.text.hasPrefix("open #") })
        #expect(reopened.milliseconds - ends <= 5_000, "reconnected \(reopened.milliseconds - ends) ms after the partition")
        #expect(result.coverage[.peersDeclaredDead] >= 1)
    }
}
