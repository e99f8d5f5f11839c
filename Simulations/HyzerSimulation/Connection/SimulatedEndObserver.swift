import HyzerKit
import HyzerSync

/// The simulator's books around one end's `ConnectionDriver`: coverage counters, trace lines,
/// safety checks, the hostile member's crafted bundle and a crash cut into an ingest. It
/// performs no protocol: the driver does, as it does for `serve`.
final class SimulatedEndObserver: ConnectionObserver {
    unowned let simulation: Simulation
    unowned let connection: SimulatedConnection
    let end: Int
    /// The device dies after the ingest now under way (`SimulatedDevice.pendingCrash`).
    private var dies = false

    init(simulation: Simulation, connection: SimulatedConnection, end: Int) {
        self.simulation = simulation
        self.connection = connection
        self.end = end
    }

    private var index: Int { connection.ends[end].device }

    func vectorRead(_ vector: VersionVector) throws {
        simulation.noteVector(vector, of: index)
    }

    func deltaRead(_ delta: Delta, above: VersionVector) throws -> [[UInt8]] {
        simulation.noteVector(delta.vector, of: index)  // held ops applied
        if !delta.bundles.isEmpty { simulation.coverage.count(.deltasSent) }
        return simulation.hostileBundle(connection, end, vector: delta.vector).map { [$0] } ?? []
    }

    func holdingsSent(_ holdings: Holdings) {
        simulation.coverage.count(.beliefsCorrected)
        simulation.record("\(simulation.devices[index].name) corrects what #\(connection.id)'s peer believes it holds")
    }

    func segmentsToIngest(_ bundle: Bundle) -> [AuthorSegment] {
        dies = simulation.devices[index].pendingCrash == .midIngest
        guard dies else { return bundle.segments }
        let segments = bundle.segments
        return Array(segments.prefix(segments.isEmpty ? 0 : simulation.random.below(segments.count)))
    }

    func ingested(_ segments: [AuthorSegment], of bundle: Bundle, report: IngestReport, vector: VersionVector) throws -> Bool {
        let sender = connection.ends[1 - end].device
        try simulation.ingested(segments, of: bundle, from: sender, into: index, report: report, vector: vector)
        guard dies else { return true }
        try simulation.crashMidIngest(index, after: segments.count, of: bundle.segments.count)
        return false
    }
}
