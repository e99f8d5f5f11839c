import Foundation
import HyzerKit
import HyzerSync

/// Crashes are power cuts on the simulated disk (docs/simulation.md, "The simulated disk"): the
/// device loses every write no sync made durable, perhaps with its last write torn, its open
/// connections die without closing anything, and its first open afterwards may meet a failed
/// read. What the device had committed before the cut must all be there when it restarts.
extension Simulation {
    /// What a mid-write power cut waits for: the write or sync of the command it cuts, and the
    /// device's vector before the command, all of which was committed.
    struct ArmedPowerCut {
        let operation: Int
        let acknowledged: VersionVector
    }

    /// The most writes and syncs a mid-write cut lets a command make before the power goes; a
    /// command that makes fewer passes the cut on to the device's next command.
    static let powerCutOperations = 1...12

    /// The share of the last unsynced write a cut keeps, in thousandths, when it tears it.
    private func drawTear() -> Int? {
        random.chance(configuration.crashes.tornWriteRate) ? random.integer(in: 0...999) : nil
    }

    /// Cuts the device's power now (unless a mid-write cut already did): its connections die,
    /// its replica's handles with them.
    func cutPower(_ index: Int, alreadyCut: Bool) throws {
        let device = devices[index]
        if let replica = device.replica {
            if !alreadyCut {
                device.acknowledgedAtPowerCut = try replica.versionVector()
                device.disk.cutPower(tearKeeping: drawTear())
            }
            // The dead connections fail every read, write and lock: closing them changes nothing on the disk.
            try? replica.close()
        }
        try closeConnections(of: index)
        device.replica = nil
        device.bundleBudget = BundleBudget()
    }

    /// Arms a power cut at a drawn write or sync of the command about to run on the device.
    func armPowerCut(_ index: Int) throws -> ArmedPowerCut {
        let device = devices[index]
        let armed = ArmedPowerCut(
            operation: random.integer(in: Self.powerCutOperations), acknowledged: try device.running.versionVector())
        device.disk.armPowerCut(atOperation: armed.operation, tearKeeping: drawTear())
        return armed
    }

    /// After the command: true when the power went during it (the device is down and its
    /// restart scheduled); false when the command made fewer writes than the cut waited for,
    /// which then waits for the device's next command.
    func powerWentOut(_ index: Int, _ armed: ArmedPowerCut, during label: String) throws -> Bool {
        let device = devices[index]
        guard device.disk.disarmPowerCut() else { return false }
        record("\(device.name) loses power at write \(armed.operation) of \(label): never acknowledged")
        device.acknowledgedAtPowerCut = armed.acknowledged
        device.interruptedCommand = label
        try crashNow(index, kind: .midWrite, alreadyCut: true)
        return true
    }

    /// Opens the store of a device whose power was cut; the open may meet a failed read, which
    /// it must report as an error (the device then opens again).
    func openAfterPowerCut(_ index: Int) throws -> Replica {
        let device = devices[index]
        if random.chance(configuration.crashes.failedReadRate) {
            device.disk.armReadFailure(atRead: random.integer(in: 1...40))
        }
        do {
            let replica = try Replica.open(
                at: device.directory, clock: device.clock, ingestClock: world, policies: policies.replica, medium: SimulatedDisk.medium)
            if device.disk.disarmReadFailure() { record("\(device.name) met a failed read while opening, and got past it") }
            return replica
        } catch {
            guard device.disk.disarmReadFailure() else {
                throw fail(.safety, "\(device.name) could not reopen its store after a crash: \(error)")
            }
            record("\(device.name) met a failed read while opening, which reported \(error); it opens again")
        }
        do {
            return try Replica.open(
                at: device.directory, clock: device.clock, ingestClock: world, policies: policies.replica, medium: SimulatedDisk.medium)
        } catch {
            throw fail(.safety, "\(device.name) could not reopen its store after a crash and a failed read: \(error)")
        }
    }

    /// After a restart: own ops no command acknowledged (`recovered`) are there only when a cut
    /// interrupted the command that wrote them.
    func checkRecovered(_ device: SimulatedDevice, _ recovered: [OpRegistry.Entry]) throws {
        defer { device.interruptedCommand = nil }
        guard !recovered.isEmpty else { return }
        guard let command = device.interruptedCommand else {
            throw fail(.safety, "\(device.name) holds \(recovered.count) own ops no command acknowledged after restarting")
        }
        record(
            "\(device.name): \(command) reached the disk before the power went: "
                + recovered.map { "#\($0.sequence)" }.joined(separator: ","))
    }

    /// After a restart: the store holds every op it held when its power was cut, its own and
    /// those it received (all had been committed, and so acknowledged to a user or a peer).
    func checkNothingCommittedLost(_ device: SimulatedDevice) throws {
        guard let acknowledged = device.acknowledgedAtPowerCut else { return }
        device.acknowledgedAtPowerCut = nil
        let held = try device.running.versionVector()
        for (author, sequence) in acknowledged.sortedEntries where held[author] < sequence {
            throw fail(
                .safety,
                "\(device.name) lost ops \(held[author] + 1)...\(sequence) of \(author.short) in a power cut: it had committed them")
        }
    }

    /// Adds what the devices' disks did to the coverage: writes a power cut dropped, writes it
    /// tore, reads that failed.
    func countDiskFaults() {
        for device in devices {
            let counters = device.disk.counters
            coverage.count(.unsyncedWritesDropped, Int(counters.droppedWrites))
            coverage.count(.writesTorn, Int(counters.tornWrites))
            coverage.count(.readsFailed, Int(counters.failedReads))
        }
    }
}
