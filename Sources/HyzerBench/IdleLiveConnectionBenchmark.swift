import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// What an idle live connection costs on the wire: two `ConnectionDriver`s over real replicas,
/// back to back, live, with nothing to say for ten minutes of engine time (ticks every 250 ms,
/// as `serve`'s). Every frame is counted with its 4-byte length prefix. The in-run baseline is
/// the same heartbeats without the anti-entropy digest (1 byte of message instead of 9, as an
/// older build sends: docs/sync-protocol.md, "Live connections heal"). Deterministic: one run.
struct IdleLiveConnectionBenchmark {
    let scratch: URL
    let minutes: UInt64 = 10

    func run() throws -> [Figure] {
        let group = GroupMembership(
            id: UUID(v5: "bench-idle-live", namespace: SeededCourses.namespace), secret: Array(repeating: 21, count: 32))
        func replica(_ name: String, _ seed: UInt8) throws -> Replica {
            let replica = try Replica.create(
                at: scratch.appendingPathComponent("idle-live-\(name)"), name: name, kind: .phone, owner: name,
                keys: SigningKeyPair(seed: Array(repeating: seed, count: 32)))
            try replica.join(group)
            try replica.addPlayer(name: "Player \(name)")
            return replica
        }
        var drivers = [
            ConnectionDriver(
                replica: try replica("a", 22), group: group, role: .dialer, mode: .live, ephemeral: KeyExchange(), budget: BundleBudget(),
                now: 0),
            ConnectionDriver(
                replica: try replica("b", 23), group: group, role: .listener, mode: .live, ephemeral: KeyExchange(), budget: BundleBudget(),
                now: 0),
        ]
        var inboxes: [[[UInt8]]] = [[], []]
        func handle(_ outputs: [ConnectionDriver.Output], from side: Int) {
            for case .write(let bytes) in outputs { inboxes[1 - side].append(bytes) }
        }
        func deliver(now: UInt64) throws {
            while let side = inboxes.indices.first(where: { !inboxes[$0].isEmpty }) {
                handle(try drivers[side].receive(frame: inboxes[side].removeFirst(), now: now), from: side)
            }
        }
        handle(try drivers[0].start(now: 0), from: 0)
        try deliver(now: 0)
        guard drivers.allSatisfy({ !$0.isOver && $0.engine.mode == .live }) else {
            throw BenchError.unexpected("the idle live connection did not open")
        }
        let start = drivers.map { $0.counts }
        var beats = 0
        let end = minutes * 60_000
        for now in stride(from: UInt64(250), through: end, by: 250) {
            for side in 0..<2 {
                let outputs = try drivers[side].tick(now: now)
                beats += outputs.count
                handle(outputs, from: side)
            }
            try deliver(now: now)
        }
        guard drivers.allSatisfy({ !$0.isOver }) else { throw BenchError.unexpected("the idle live connection closed") }
        let bytes = (0..<2).reduce(0) { $0 + drivers[$1].counts.bytesSent - start[$1].bytesSent }
        let perMinuteEachWay = Double(bytes) / Double(minutes) / 2
        let baseline = Double(beats * (1 + SecretStream.overheadBytes + 4)) / Double(minutes) / 2
        return [
            Figure(
                name: "idle live connection, bytes a minute each way (heartbeats with the holdings digest)", value: perMinuteEachWay,
                unit: "B/min", baseline: baseline, baselineName: "the same heartbeats without the digest (an older build's)",
                ratio: perMinuteEachWay > 0 ? baseline / perMinuteEachWay : nil, target: nil, met: nil,
                spread: 0)
        ]
    }
}
