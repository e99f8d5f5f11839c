import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// Stores that fork their author's log (docs/simulation.md, "A restored backup" and "A copied
/// store"): a phone restored from an old backup, and a store copied to a second device. Either
/// copy refuses to write once it learns that its key writes elsewhere; then, as a user would,
/// it runs `device continue` and plays on under a new key drawn from the seed.
extension Simulation {
    /// The extra device that will run a copy of `source`'s store: down until the copy is made,
    /// with a clock of its own and no folder.
    func addCopyDevice(for copied: CopiedStore, in directory: URL) throws {
        let source = copied.device
        let index = devices.count
        let name = "copy-of-\(devices[source].name)"
        let clock = DeviceClock(world: world, model: drawClock(accurate: false, extra: []))
        let device = SimulatedDevice(
            index: index, name: name, kind: .phone, directory: directory.appendingPathComponent(name), keys: devices[source].keys,
            clock: clock, usesFolder: false, diskRule: policies.disk)
        device.ownedPlayer = devices[source].ownedPlayer
        devices.append(device)
        copied.copy = index
        record("create \(name): a copy of \(devices[source].name)'s store, made later")
    }

    /// When the copy is made, and what its user scores: the holes the source phone scores after
    /// the copy, each a little later, with the true score.
    func scheduleCopy() {
        guard let source = copied?.device, let copy = copied?.copy else { return }
        let span = configuration.workloadMilliseconds
        let at = start + 60_000 + random.integer(in: 0...(span * 6 / 10).minus(60_000))
        queue.schedule(.copyStore(from: source, to: copy), at: at)
        for (time, action) in plan.actions where time > at {
            guard case .score(let planned) = action, planned.device == source else { continue }
            let echo = ScorePlan(card: planned.card, device: copy, participant: planned.participant, hole: planned.hole, error: 0)
            queue.schedule(.workload(.score(echo)), at: time + UInt64(random.integer(in: 1_000...60_000)))
        }
    }

    /// The phone's store is copied while closed, as in an idle restart: the backup.
    func backUp(_ index: Int) throws {
        let device = devices[index]
        let running = device.isRunning
        if running { try stop(index, "closes for a backup") }
        try copyDirectory(device.directory, to: backupDirectory(of: device))
        restored?.cursor = registry.cursors[index]
        record("\(device.name) backed up at \(restored?.cursor?.count ?? 0) own ops")
        if running { try reopen(index, "restarted after its backup") }
    }

    /// The phone's store is replaced by its backup: its ops written since are gone from it. It
    /// goes on as before.
    func restoreBackup(_ index: Int) throws {
        let device = devices[index]
        guard let cursor = restored?.cursor else { return }
        let running = device.isRunning
        if running { try stop(index, "closes to be restored") }
        try? FileManager.default.removeItem(at: device.directory)
        try copyDirectory(backupDirectory(of: device), to: device.directory)
        let lost = (registry.cursors[index]?.count ?? 0) - cursor.count
        registry.restore(index, to: cursor)
        // A store restored while its device was down after a power cut holds what the backup
        // held, not what the cut found: the user discarded the rest.
        device.acknowledgedAtPowerCut = nil
        device.interruptedCommand = nil
        coverage.count(.backupsRestored)
        record("\(device.name) restored from its backup: \(lost) newer own ops gone from its store")
        if running { try reopen(index, "restarted on its backup") }
    }

    /// `source`'s store is copied (while closed) to the extra device, which starts on it with
    /// the same key.
    func copyStore(_ source: Int, to copy: Int) throws {
        let running = devices[source].isRunning
        if running { try stop(source, "closes to be copied") }
        try copyDirectory(devices[source].directory, to: devices[copy].directory)
        registry.copy(source, to: copy)
        coverage.count(.storesCopied)
        record("\(devices[source].name)'s store copied to \(devices[copy].name)")
        if running { try reopen(source, "restarted after the copy") }
        try reopen(copy, "starts on the copy")
    }

    /// The device's key was found writing elsewhere: it goes on under a new key, as
    /// `hyzer-peer device continue` does, and its connections start over under that key.
    func continueUnderNewKey(_ index: Int) throws {
        let device = devices[index]
        let keys = SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes))
        let old = device.author
        for connection in links.inOrder where connection.end(of: index) != nil {
            try close(connection, "\(device.name) continues under a new key")
        }
        do {
            device.replica = try device.running.continueUnderNewKey(keys)
        } catch {
            throw fail(.unexpected, "\(device.name) could not continue under a new key: \(error)")
        }
        device.keys = keys
        device.author = AuthorID(bytes: keys.publicKey)!
        device.bundleBudget = BundleBudget()
        device.announcedVector = nil
        let written = try capture(device)
        coverage.count(.devicesContinued)
        links.changed.insert(index)
        dialPeers(of: index)
        record(
            "\(device.name) continues under \(device.author.short) after \(old.short): "
                + written.map { "#\($0.sequence)" }.joined(separator: ","))
    }

    /// Closes the device's process (an idle restart): its connections end.
    private func stop(_ index: Int, _ why: String) throws {
        let device = devices[index]
        try closeProcess(index)
        device.announcedVector = nil
        record("\(device.name) \(why)")
    }

    /// Opens the device's store again; it holds every op it acknowledged and verifies.
    private func reopen(_ index: Int, _ why: String) throws {
        let device = devices[index]
        do {
            device.replica = try Replica.open(
                at: device.directory, clock: device.clock, ingestClock: world, policies: policies.replica, medium: SimulatedDisk.medium)
        } catch {
            throw fail(.safety, "\(device.name) could not open its store: \(error)")
        }
        dialPeers(of: index)
        links.changed.insert(index)
        if !(try capture(device)).isEmpty { throw fail(.safety, "\(device.name) holds own ops no command acknowledged") }
        try checkSafety(device)
        record("\(device.name) \(why)")
    }

    private func backupDirectory(of device: SimulatedDevice) -> URL {
        device.directory.deletingLastPathComponent().appendingPathComponent("\(device.name)-backup")
    }

    private func copyDirectory(_ from: URL, to: URL) throws {
        do {
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.copyItem(at: from, to: to)
            SimulatedDisk.copy(from, to: to)  // the database, on the simulated disk
        } catch {
            throw fail(.unexpected, "copying \(from.lastPathComponent) failed: \(error)")
        }
    }
}
