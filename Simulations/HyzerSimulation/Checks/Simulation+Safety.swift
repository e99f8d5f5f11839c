import Foundation
import HyzerDomain
import HyzerKit

extension Simulation {
    /// The periodic safety checks of every running replica; `verify()`, which re-checks every
    /// stored signature and rebuilds every view, runs on one replica per checkpoint in turn
    /// (each replica is verified in full at every restart and at the end).
    func checkpoint() throws {
        checkpoints += 1
        let running = devices.filter(\.isRunning)
        let verified = running.isEmpty ? nil : running[checkpoints % running.count].index
        for device in running { try checkSafety(device, verifying: device.index == verified) }
        record("checkpoint: \(running.count) replicas safe, \(verified.map { devices[$0].name } ?? "none") verified")
    }

    /// Safety of one replica: every op it holds is one some device created (its head op of
    /// every author is the very op the author acknowledged, which the verified hash chain
    /// extends to the whole log), it holds all its own acknowledged ops, and `verify()` finds
    /// chains, signatures and incrementally kept views intact (unless `verifying` is false).
    func checkSafety(_ device: SimulatedDevice, verifying: Bool = true) throws {
        guard let replica = device.replica else { return }
        do {
            let vector = try self.vector(of: device.index)
            if vector[device.author] < UInt64(registry.count(device.author)) {
                throw fail(
                    .safety, "\(device.name) holds \(vector[device.author]) of the \(registry.count(device.author)) ops it acknowledged")
            }
            var below = VersionVector()
            for (author, head) in vector.sortedEntries {
                guard head <= UInt64(registry.count(author)) else {
                    throw fail(.safety, "\(device.name) holds op \(head) of \(author.short), which no device created")
                }
                below[author] = head - 1
            }
            for segment in try replica.delta(above: below) {
                guard let tail = segment.tails.first, let created = registry.entry(segment.author, segment.firstSequence) else { continue }
                let held = SignedOp(
                    author: segment.author, sequence: segment.firstSequence, previousHash: segment.previousHash, tail: tail, signature: nil)
                if held.hash != created.hash {
                    throw fail(
                        .safety,
                        "\(device.name) holds an op \(segment.firstSequence) of \(segment.author.short) that its author never created")
                }
            }
            guard verifying else { return }
            let report = try replica.verify()
            if !report.isIntact {
                throw fail(.safety, "\(device.name) does not verify: \(report.problems.map(\.description).joined(separator: "; "))")
            }
            if !report.forks.isEmpty {
                throw fail(.safety, "\(device.name) reports forks of \(report.forks.map { $0.author.short })")
            }
        } catch let failure as SimulationFailure {
            throw failure
        } catch {
            throw fail(.unexpected, "\(device.name) failed its safety check: \(error)")
        }
    }
}
