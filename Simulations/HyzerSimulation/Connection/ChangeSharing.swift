import HyzerKit
import HyzerSync

/// While a device's connections are told of one change (`Simulation.announceChanges`): the
/// vector read once for all of them, and the deltas read so far, by what the peer held. The
/// simulator's side of the seam `serve` shares through (`DeltaSharing`, `ConnectionSignals`).
final class ChangeSharing: DeltaSharing {
    let vector: VersionVector
    private var deltas: [DeltaRequest: Delta] = [:]

    init(vector: VersionVector) {
        self.vector = vector
    }

    func vectorAfterLatestChange(_ read: () throws -> VersionVector) throws -> VersionVector { vector }

    func deltaAfterLatestChange(_ request: DeltaRequest, _ read: () throws -> Delta) throws -> Delta {
        if let shared = deltas[request] { return shared }
        let delta = try read()
        deltas[request] = delta
        return delta
    }

    func sharedDelta(_ request: DeltaRequest) -> Delta? { deltas[request] }
}
