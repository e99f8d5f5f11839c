import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

extension Simulation {
    /// Every fault ends: devices come online, partitions close, crashed devices restart, links
    /// and the folder stop losing, duplicating and tearing. The devices keep syncing.
    func heal() throws {
        schedule.heal()
        network.heal()
        folder?.heal()
        folder?.clearFailures()
        for device in devices {
            device.pendingCrash = nil
            if !device.isRunning { try restart(device.index) }
        }
        record("heal: every fault ends")
        let oracle = ScoreOracle(registry)
        let (merges, disputes) = oracle.mergesAndDisputes()
        coverage.count(.silentMerges, merges)
        coverage.count(.discrepancies, disputes)
        coverage.count(.scoresAfterFinish, scoresAfterFinish())
        scheduleIn(30_000, .convergenceCheck)
    }

    /// After the heal, every 30 simulated seconds: do all replicas hold every created op yet?
    /// When they do, their views must be byte-identical and agree with the oracles.
    func convergenceCheck() throws {
        let expected = registry.vector
        var lagging: [String] = []
        for device in devices {
            let vector = device.isRunning ? try self.vector(of: device.index) : VersionVector()
            let missing = expected.sortedEntries.reduce(0) { $0 + Int($1.sequence - min($1.sequence, vector[$1.author])) }
            if missing > 0 || vector.heads != expected.heads {
                let authors = expected.sortedEntries.filter { vector[$0.author] < $0.sequence }.map { author in
                    devices.first { $0.author == author.author }?.name ?? author.author.short
                }
                lagging.append("\(device.name) lacks \(missing) ops of \(authors)")
            }
        }
        guard lagging.isEmpty else {
            if world.now >= deadline {
                throw fail(
                    .convergence,
                    "no convergence \(configuration.convergenceBoundMinutes) simulated minutes after the heal: "
                        + lagging.joined(separator: "; "))
            }
            scheduleIn(30_000, .convergenceCheck)
            return
        }
        try checkConverged()
        convergedAt = world.now
        record("converged: \(registry.total) ops everywhere, standings \(standingsDigest ?? "")")
    }

    /// Equal op sets: equal digests, byte-identical views, views the oracles agree with, and
    /// every replica safe.
    private func checkConverged() throws {
        var digests: [String] = []
        var snapshots: [(device: SimulatedDevice, snapshot: ReplicaSnapshot, bytes: [UInt8])] = []
        do {
            for device in devices {
                digests.append(try device.running.digest())
                let snapshot = try ReplicaSnapshot(device.running)
                snapshots.append((device, snapshot, try snapshot.encoded()))
            }
        } catch {
            throw fail(.unexpected, "reading the converged views failed: \(error)")
        }
        if Set(digests).count > 1 {
            throw fail(
                .convergence,
                "replicas hold every op but their digests differ: \(zip(devices, digests).map { "\($0.name)=\($1.prefix(12))" })")
        }
        let reference = snapshots[0]
        for other in snapshots.dropFirst() where other.bytes != reference.bytes {
            let difference = try other.snapshot.firstDifference(from: reference.snapshot)
            throw fail(.convergence, "\(other.device.name) and \(reference.device.name) hold the same ops but show different \(difference)")
        }
        for device in devices { try checkSafety(device) }
        let replica = devices[0].running
        let scores = ScoreOracle(registry)
        let registers = RegisterOracle(registry)
        do {
            for view in try replica.rounds().sorted(by: { $0.round.id.lowercased < $1.round.id.lowercased }) {
                if let problem = scores.disagreement(with: view) { throw fail(.oracle, problem) }
            }
            if let problem = registers.disagreement(courses: try replica.courses(includingDeleted: true), players: try replica.players()) {
                throw fail(.oracle, problem)
            }
        } catch let failure as SimulationFailure {
            throw failure
        } catch {
            throw fail(.unexpected, "reading the converged views failed: \(error)")
        }
        storeDigest = digests[0]
        standingsDigest = Hex.encode(Blake2b.hash256(reference.bytes))
    }

    /// Scores created, by their own clock, after their round's valid finish.
    private func scoresAfterFinish() -> Int {
        let oracle = ScoreOracle(registry)
        var count = 0
        for (round, events) in oracle.events.sorted(by: { $0.key.lowercased < $1.key.lowercased }) {
            let organizerDevices = oracle.owners[oracle.organizers[round] ?? ""] ?? []
            guard
                let finish = (oracle.finishes[round] ?? []).filter({ organizerDevices.contains($0.device) })
                    .min(by: { ($0.clock, $0.device) < ($1.clock, $1.device) })
            else { continue }
            count += events.filter { $0.clock > finish.clock }.count
        }
        return count
    }
}
