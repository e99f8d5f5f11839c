import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging

/// What one TCP sync costs as the group grows and as the replicas differ: for groups of 10, 150
/// and 1,000 authors, two replicas that hold the same logs except that the dialer lacks the last
/// op of 0, 1, 10 or 100 authors (docs/performance.md, "The cost curve"). Each sync's bytes stand
/// beside the bytes of the ops it had to carry (one bundle of just the missing ops), each time
/// beside the same group's sync with nothing to carry.
struct CostCurveBenchmark {
    let scratch: URL

    static let groupSizes = [10, 150, 1_000]
    static let differences = [0, 1, 10, 100]

    /// One measured sync.
    struct Point: Sendable {
        let authors: Int
        let differing: Int
        let bytes: Int
        /// Of `bytes`, the handshake's and the stream headers': the same for every sync.
        let handshakeBytes: Int
        let milliseconds: Double
        /// The bytes of one bundle holding only the ops the dialer lacked.
        let floorBytes: Int
    }

    func run() async throws -> (figures: [Figure], points: [Point]) {
        let group = GroupMembership(
            id: UUID(v5: "bench-curve", namespace: SeededCourses.namespace), secret: Array(repeating: 21, count: 32))
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        var points: [Point] = []
        for authors in Self.groupSizes {
            // Every author wrote two ops; the dialer lacks the second op of the first `differing`.
            let logs = (0..<authors).map { index in
                var seed = [UInt8](repeating: 0, count: 32)
                withUnsafeBytes(of: UInt32(index).bigEndian) { seed.replaceSubrange(0..<4, with: $0) }
                seed[31] = 0xC5
                // Both ops signed, as a device writes them (one command, one signed segment).
                let keys = SigningKeyPair(seed: seed)
                return BenchData.ops(keys: keys, count: 2).map { $0.with(signature: keys.sign(SignedOp.signedMessage(hash: $0.hash))) }
            }
            for differing in Self.differences where differing <= authors {
                let directory = scratch.appendingPathComponent("curve-\(authors)-\(differing)")
                func replica(_ name: String, _ seed: UInt8, lacking: Int) throws -> Replica {
                    let replica = try Replica.create(
                        at: directory.appendingPathComponent(name), name: name, kind: .laptop,
                        keys: SigningKeyPair(seed: Array(repeating: seed, count: 32)))
                    try replica.join(group)
                    let segments = logs.enumerated().map { index, ops in AuthorSegment(ops: index < lacking ? [ops[0]] : ops) }
                    _ = try replica.ingest(segments)
                    return replica
                }
                let listener = try replica("listener", 22, lacking: 0)
                let dialer = try replica("dialer", 23, lacking: differing)
                // Each holds the other's own ops (its device record) already: only the differing ops cross.
                _ = try dialer.ingest(try listener.delta(above: VersionVector()).filter { $0.author == listener.author })
                _ = try listener.ingest(try dialer.delta(above: VersionVector()).filter { $0.author == dialer.author })
                let server = try await PeerServer(replica: listener, group: group, logger: logger).start()
                defer { server.stop() }
                var outcome = ConnectionOutcome()
                let seconds = try await Stopwatch.asyncSeconds {
                    outcome = try await PeerDialer.connectAndRun(
                        server.address, replica: dialer, group: group, mode: .oneShot, logger: logger)
                }
                guard outcome.failure == nil, outcome.opsReceived == differing else {
                    throw BenchError.unexpected("the curve's sync of \(authors) authors, \(differing) differing: \(outcome)")
                }
                let missing = logs.prefix(differing).map { AuthorSegment(ops: [$0[1]]) }
                // The floor names only the authors it carries: what the missing ops take, no more.
                let carried = VersionVector(Dictionary(uniqueKeysWithValues: missing.map { ($0.author, UInt64(2)) }))
                let floor = Bundle(groupID: group.id, sender: listener.author, senderVector: carried, segments: missing)
                    .encoded(signedBy: listener.signature(of:)).count
                points.append(
                    Point(
                        authors: authors, differing: differing, bytes: outcome.bytesSent + outcome.bytesReceived,
                        handshakeBytes: outcome.handshakeBytes, milliseconds: seconds * 1000, floorBytes: differing == 0 ? 0 : floor))
            }
        }
        return (Self.figures(points), points)
    }

    static func figures(_ points: [Point]) -> [Figure] {
        points.flatMap { point -> [Figure] in
            let noOp = points.first { $0.authors == point.authors && $0.differing == 0 }
            // The targets are the sync's own bytes: the handshake before it costs the same whatever differs.
            let exchange = point.bytes - point.handshakeBytes
            let target: (text: String, met: Bool)? =
                switch (point.authors, point.differing) {
                case (_, 0): ("≤ 512 B", exchange <= 512)
                case (150, 1): ("≤ 1024 B", exchange <= 1024)
                default: nil
                }
            let bytes = Double(point.bytes)
            let afterHandshake = target.map { target in
                Figure(
                    name:
                        "sync bytes after the \(point.handshakeBytes)-byte handshake, \(point.authors) authors, \(point.differing) differing",
                    value: Double(exchange), unit: "bytes", baseline: nil, baselineName: nil, ratio: nil, target: target.text,
                    met: target.met, spread: 0)
            }
            return [
                Figure(
                    name: "sync bytes, \(point.authors) authors, \(point.differing) differing", value: bytes, unit: "bytes",
                    baseline: point.differing == 0 ? nil : Double(point.floorBytes),
                    baselineName: point.differing == 0 ? nil : "one bundle of only the missing ops",
                    ratio: point.differing == 0 ? nil : Double(point.floorBytes) / bytes, target: nil, met: nil, spread: 0)
            ] + (afterHandshake.map { [$0] } ?? []) + [
                Figure(
                    name: "sync time, \(point.authors) authors, \(point.differing) differing", value: point.milliseconds, unit: "ms",
                    baseline: noOp?.milliseconds, baselineName: "the same group's sync with nothing to carry",
                    ratio: noOp.map { $0.milliseconds / point.milliseconds }, target: nil, met: nil, spread: 0)
            ]
        }
    }
}
