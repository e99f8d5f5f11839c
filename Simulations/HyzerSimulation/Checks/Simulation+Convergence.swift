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
    ///
    /// A phone whose clock is a year ahead holds everything; every other replica holds its ops
    /// only up to the last one stamped before the jump (`honestVector`), the rest held aside,
    /// and only those replicas must show identical views.
    func convergenceCheck() throws {
        var honest = try honestVector()
        var lagging: [String] = []
        let forks = try forkAgreement()
        lagging += forks.lagging
        for author in registry.disturbed { honest[author] = 0 }
        for device in devices where !isRemovedPhone(device.index) {
            var expected = device.index == yearAhead?.device ? registry.vector : honest
            if device.index == yearAhead?.device {
                // The year-ahead phone holds every op but the removed phone's: those reach it as
                // far as they reach any member (full-profile seeds 259 and 871).
                if let removal, removal.isRemoved { expected[devices[removal.device].author] = honest[devices[removal.device].author] }
                for planted in plantedAuthors { expected[planted] = honest[planted] }
            }
            var vector = device.isRunning ? try self.vector(of: device.index) : VersionVector()
            for author in registry.disturbed {
                expected[author] = 0
                vector[author] = 0
            }
            let missing = expected.sortedEntries.reduce(0) { $0 + Int($1.sequence - min($1.sequence, vector[$1.author])) }
            if missing > 0 || vector.heads != expected.heads {
                let authors = expected.sortedEntries.filter { vector[$0.author] < $0.sequence }.map { author in
                    devices.first { $0.author == author.author }?.name ?? author.author.short
                }
                lagging.append("\(device.name) lacks \(missing) ops of \(authors)")
            }
        }
        guard lagging.isEmpty else {
            if world.now >= convergenceDue(honest) {
                throw fail(
                    .convergence,
                    "no convergence \(configuration.convergenceBoundMinutes) simulated minutes after the heal: "
                        + lagging.joined(separator: "; "))
            }
            scheduleIn(30_000, .convergenceCheck)
            return
        }
        try checkConverged(honest, forks: forks)
        outcome.convergedAt = world.now
        record("converged: \(registry.total) ops everywhere, standings \(outcome.standingsDigest ?? "")")
    }

    /// When every replica must hold what it is expected to: `convergenceBoundMinutes` after the
    /// heal, or after the latest-stamped of those ops comes within the drift bound of every
    /// clock, whichever is later. A replica rightly holds an op stamped further ahead of its clock
    /// aside until then (docs/store.md, "Held ops"), and clock steps that pile up ahead before the
    /// heal stamp ops past it: in seed 3,406 a phone three steps (75 minutes) fast signed a
    /// receipt just before the heal, which every other replica held for 65 minutes.
    private func convergenceDue(_ honest: VersionVector) -> UInt64 {
        var latest: UInt64 = 0
        for entry in honest.sortedEntries where entry.sequence > 0 && !registry.disturbed.contains(entry.author) {
            for sequence in 1...entry.sequence {
                latest = max(latest, registry.entry(entry.author, sequence)?.clock.physicalMilliseconds ?? 0)
            }
        }
        // How far the furthest-behind clock of the replicas that must hold them trails true time.
        let now = max(world.now, healAt)
        let behind =
            devices.filter { !deviceFaults.leaveOutOfComparison($0.index) }
            .map { Int64(now) - Int64($0.clock.model.reading(at: now)) }.max() ?? 0
        let release = Int64(latest) - Int64(HybridLogicalClock.maximumDriftMilliseconds) + max(0, behind)
        return max(healAt, UInt64(max(0, release))) + UInt64(configuration.convergenceBoundMinutes) * 60_000
    }

    /// What every replica but the year-ahead phone must hold: every created op, except the
    /// year-ahead phone's from its first op stamped a year ahead on (those are held aside,
    /// along with any op that only ever travelled in one segment with them). Of that phone's
    /// earlier ops, as many as the furthest of them holds; holding one stamped a year ahead
    /// is a safety failure.
    private func honestVector() throws -> VersionVector {
        var honest = registry.vector
        // The removed phone's ops reach the others only until they learn of the removal; what
        // the furthest of them holds spreads to all (it counts nowhere above the removal).
        if let removal, removal.isRemoved {
            let author = devices[removal.device].author
            honest[author] =
                try devices.filter { $0.index != removal.device && $0.isRunning }.map { try vector(of: $0.index)[author] }.max() ?? 0
        }
        // A planted identity's ops spread from wherever its bundle landed, as far as the furthest holds.
        for planted in plantedAuthors {
            honest[planted] =
                try devices.filter { !isRemovedPhone($0.index) && $0.isRunning }.map { try vector(of: $0.index)[planted] }
                .max() ?? 0
        }
        guard let phone = yearAhead?.device else { return honest }
        let author = devices[phone].author
        let firstAhead = (1...max(1, UInt64(registry.count(author)))).first { sequence in
            (registry.entry(author, sequence)?.clock.physicalMilliseconds ?? 0) >= start + Self.yearMilliseconds / 2
        }
        guard let firstAhead else { return honest }
        // The removed phone may have got earlier ops of the phone that reach no one through it
        // (seed 37 with every fault pinned, docs/simulation.md): only the members' holdings spread.
        var furthest: UInt64 = 0
        for device in devices where device.index != phone && device.isRunning {
            let held = try vector(of: device.index)[author]
            if held >= firstAhead {
                throw fail(.safety, "\(device.name) applied op \(firstAhead) of \(devices[phone].name), stamped a year ahead")
            }
            if !isRemovedPhone(device.index) { furthest = max(furthest, held) }
        }
        honest[author] = furthest
        return honest
    }

    /// Equal op sets: equal digests, byte-identical views, views the oracles agree with, and
    /// every replica safe. The year-ahead phone holds more than the others (`honest`): it is
    /// checked for safety alone.
    private func checkConverged(_ honest: VersionVector, forks: ForkAgreement) throws {
        var digests: [String] = []
        var snapshots: [(device: SimulatedDevice, snapshot: ReplicaSnapshot, bytes: [UInt8])] = []
        let compared = devices.filter { !deviceFaults.leaveOutOfComparison($0.index) }
        outcome.finalViewsAt = compared.map(\.vectorChangedAt).max()
        if let phone = yearAhead?.device {
            let heldAside = registry.count(devices[phone].author) - Int(honest[devices[phone].author])
            coverage.count(.yearAheadOpsHeld, heldAside)
            record("\(devices[phone].name)'s clock is a year ahead: \(heldAside) of its ops held aside everywhere else")
        }
        for device in compared { try checkPlantedCountNowhere(device) }
        do {
            for device in compared {
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
                "replicas hold every op but their digests differ: \(zip(compared, digests).map { "\($0.name)=\($1.prefix(12))" })")
        }
        guard let reference = snapshots.first else {
            // Nothing to compare: the only phones left are the year-ahead one and the removed one.
            for device in devices { try checkSafety(device) }
            return
        }
        for other in snapshots.dropFirst() where other.bytes != reference.bytes {
            let difference = try other.snapshot.firstDifference(from: reference.snapshot)
            throw fail(.convergence, "\(other.device.name) and \(reference.device.name) hold the same ops but show different \(difference)")
        }
        for device in devices { try checkSafety(device) }
        let replica = compared[0].running
        var counting = honest
        if let removal, let through = removal.through {
            let author = devices[removal.device].author
            counting[author] = min(honest[author], through)
            record("\(devices[removal.device].name) was removed: its ops up to \(through) count, \(honest[author]) are held")
        }
        for (author, counted) in forks.counted { counting[author] = counted.count }
        let held = registry.restricted(to: counting, heads: forks.counted.mapValues(\.hash))
        for (author, point) in forks.frozen.sorted(by: { $0.key < $1.key }) {
            coverage.count(.forksDetected)
            record("\(author.short) forked: every replica froze it at \(point); its ops below count")
        }
        let scores = ScoreOracle(held)
        let registers = RegisterOracle(held)
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
        outcome.storeDigest = digests[0]
        outcome.standingsDigest = Hex.encode(Blake2b.hash256(reference.bytes))
    }

    /// Whether `index` is the phone the organizer removed (once it has): it cannot read what is
    /// written after the rekey.
    private func isRemovedPhone(_ index: Int) -> Bool {
        removal?.isOut(index) ?? false
    }

    /// The identities the hostile member planted.
    private var plantedAuthors: Set<AuthorID> { hostile?.plantedAuthors ?? [] }

    /// Scores created, by their own clock, after their round's valid finish.
    private func scoresAfterFinish() -> Int {
        let oracle = ScoreOracle(registry)
        var count = 0
        for (round, events) in oracle.events.sorted(by: { $0.key.lowercased < $1.key.lowercased }) {
            let organizerDevices = oracle.organizers[round].flatMap { oracle.owners[$0] } ?? []
            guard
                let finish = (oracle.finishes[round] ?? []).filter({ organizerDevices.contains($0.device) })
                    .min(by: { ($0.clock, $0.device) < ($1.clock, $1.device) })
            else { continue }
            count += events.filter { $0.clock > finish.clock }.count
        }
        return count
    }

    /// What the replicas agree on of each author a store of which was restored or copied.
    struct ForkAgreement {
        var lagging: [String] = []
        /// Per author, the ops that count: how many and the hash of the last.
        var counted: [AuthorID: (count: UInt64, hash: [UInt8])] = [:]
        /// Authors frozen, at their fork point.
        var frozen: [AuthorID: UInt64] = [:]
    }

    /// A restored or copied store's author is handled identically everywhere: once any replica
    /// holds a fork's proof, every replica freezes the author at the same sequence (different
    /// replicas may hold different branch tails above it: only the ops below it count, and
    /// `digest()` covers those and the fork state); while none does, every replica holds the
    /// same log, to the same head. The fork point is never below the lowest sequence at which
    /// two created branches differ.
    private func forkAgreement() throws -> ForkAgreement {
        var agreement = ForkAgreement()
        let holders = devices.filter { $0.isRunning && !isRemovedPhone($0.index) }
        for author in registry.disturbed.sorted() {
            let name = author.short
            let entries = try holders.map { try vector(of: $0.index).entry(author) }
            let points = Set(entries.map { $0?.frozenAt })
            if points.contains(where: { $0 != nil }) {
                guard points.count == 1, let point = points.first!, let reference = holders.first else {
                    agreement.lagging.append("\(name) frozen at \(entries.map { $0?.frozenAt.map(String.init) ?? "-" })")
                    continue
                }
                if let created = registry.forkPoint(author), point < created {
                    throw fail(.safety, "\(name) frozen at \(point), below its fork at \(created)")
                }
                agreement.frozen[author] = point
                agreement.counted[author] = (point - 1, try heldHash(of: author, point - 1, in: reference) ?? [])
            } else {
                let heads = Set(entries.map { "\($0?.sequence ?? 0):\(Hex.encode($0?.hashPrefix ?? []))" })
                guard heads.count == 1, let entry = entries.first ?? nil else {
                    if heads.count > 1 { agreement.lagging.append("\(name) held to different heads \(heads.sorted())") }
                    continue
                }
                agreement.counted[author] = (entry.sequence, entry.hashPrefix ?? [])
            }
        }
        return agreement
    }

    /// The hash of op `sequence` of `author` in the log `device` holds.
    private func heldHash(of author: AuthorID, _ sequence: UInt64, in device: SimulatedDevice) throws -> [UInt8]? {
        guard sequence > 0 else { return nil }
        var above = try vector(of: device.index)
        above[author] = 0
        var chain: [UInt8]?
        var next: UInt64 = 1
        for segment in try device.running.delta(above: above) where segment.author == author && segment.firstSequence == next {
            var previous = segment.previousHash
            for tail in segment.tails {
                previous = SignedOp(author: author, sequence: next, previousHash: previous, tail: tail, signature: nil).hash
                if next == sequence { chain = previous }
                next += 1
            }
        }
        return chain
    }
}
