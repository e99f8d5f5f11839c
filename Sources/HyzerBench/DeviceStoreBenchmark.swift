import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The store a device's own play leaves: `rounds` rounds (`BenchHistory`) written as a device
/// writes them, every command its own signed segment, whose signatures compaction drops but
/// for the head's and one every 64 KiB (docs/store.md, "Signature compaction"); beside the same ops ingested as one signed segment, as a catch-up
/// bundle brings them. Both stores must verify clean. Sizes are exact: the same in any build,
/// on any machine.
struct DeviceStoreBenchmark {
    let rounds: Int
    let scratch: URL

    func run() throws -> [Figure] {
        let keys = SigningKeyPair(seed: Array(repeating: 31, count: 32))
        let commands = BenchHistory.commands(keys: keys, rounds: rounds)
        let written = try storeBytes(commands, name: "device-store-commands")
        let bulk = try storeBytes([BenchHistory.segments(keys: keys, rounds: rounds, later: 0).first], name: "device-store-bulk")
        let events = Double(commands.count)
        let value = Double(written) / events
        return [
            Figure(
                name: "store size, \(rounds) rounds written as devices write", value: value, unit: "bytes/event",
                baseline: Double(bulk) / events,
                baselineName: "the same \(commands.count) ops ingested as one signed segment (a catch-up bundle)",
                ratio: Double(bulk) / Double(written), target: "≤ 130 B", met: value <= 130, spread: 0)
        ]
    }

    /// Bytes of a fresh store after ingesting `segments`, once it verified clean.
    private func storeBytes(_ segments: [AuthorSegment], name: String) throws -> Int {
        let replica = try Replica.create(
            at: scratch.appendingPathComponent(name), name: "bench", kind: .laptop,
            keys: SigningKeyPair(seed: Array(repeating: 32, count: 32)))
        defer { try? replica.close() }
        let expected = segments.reduce(0) { $0 + $1.tails.count }
        let applied = try replica.ingest(segments).opsApplied
        guard applied == expected else { throw BenchError.unexpected("\(name): \(applied) of \(expected) ops applied") }
        let problems = try replica.verify().problems
        guard problems.isEmpty else { throw BenchError.unexpected("\(name) does not verify: \(problems.prefix(3))") }
        return try replica.storeBytes()
    }
}
