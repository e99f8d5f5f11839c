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
        try checkMemoryBounded(device)
        do {
            let vector = try self.vector(of: device.index)
            // Relative to a restore: the restored store acknowledged only what its backup held.
            if let cursor = registry.cursors[device.index], vector[cursor.author] < UInt64(cursor.count) {
                throw fail(.safety, "\(device.name) holds \(vector[cursor.author]) of the \(cursor.count) ops it acknowledged")
            }
            var below = VersionVector()
            for (author, head) in vector.sortedEntries {
                guard head <= UInt64(registry.count(author)) else {
                    throw fail(.safety, "\(device.name) holds op \(head) of \(author.short), which no device created")
                }
                below[author] = head - 1
            }
            // Each segment's last op (the head of a live author; of a frozen one, its held log
            // and the other branch's proof, either branch) is an op some device created.
            for segment in try replica.delta(above: below) {
                var chain = segment.previousHash
                for (offset, tail) in segment.tails.enumerated() {
                    chain =
                        SignedOp(
                            author: segment.author, sequence: segment.firstSequence + UInt64(offset), previousHash: chain, tail: tail,
                            signature: nil
                        ).hash
                }
                if !registry.created(segment.author, segment.lastSequence, hash: chain) {
                    throw fail(
                        .safety,
                        "\(device.name) holds an op \(segment.lastSequence) of \(segment.author.short) that its author never created")
                }
            }
            guard verifying else { return }
            let report = try replica.verify()
            if !report.isIntact {
                throw fail(.safety, "\(device.name) does not verify: \(report.problems.map(\.description).joined(separator: "; "))")
            }
            // Only a restored or copied store's author may fork, and only by a second branch.
            let unexpected = report.forks.filter { fork in
                guard registry.disturbed.contains(fork.author), case .fork = fork.reason, let point = registry.forkPoint(fork.author)
                else { return true }
                return fork.sequence < point
            }
            if !unexpected.isEmpty {
                throw fail(.safety, "\(device.name) reports forks of \(unexpected.map { "\($0.author.short) at \($0.sequence)" })")
            }
        } catch let failure as SimulationFailure {
            throw failure
        } catch {
            throw fail(.unexpected, "\(device.name) failed its safety check: \(error)")
        }
    }

    /// The memory a device's connections hold for partial bundles stays within its process's
    /// budget (32 MiB, docs/sync-protocol.md), and all of it is given back once no connection
    /// of the device is open: a leak would shrink the budget for good.
    func checkMemoryBounded(_ device: SimulatedDevice) throws {
        let used = device.bundleBudget.bytesUsed
        let open = links.open.values.contains { $0.isOpen && $0.end(of: device.index) != nil }
        if used > device.bundleBudget.bytesMax || used < 0 || (!open && used != 0) {
            throw fail(
                .safety,
                "\(device.name) holds \(used) bytes of partial bundles (budget \(device.bundleBudget.bytesMax)) with \(open ? "" : "no ")connection open"
            )
        }
    }
}
