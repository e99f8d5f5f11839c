import Foundation
import HyzerKit
import HyzerSync

extension Simulation {
    /// A crash comes due: idle crashes happen now; the others wait for the operation they
    /// interrupt (the device's next command, message or folder write).
    func crash(_ index: Int, _ kind: CrashKind) throws {
        let device = devices[index]
        guard device.isRunning, device.pendingCrash == nil else { return }
        switch kind {
        case .idle:
            record("\(device.name) killed")
            try crashNow(index, kind: .idle)
        case .midFolderSync where device.usesFolder:
            device.pendingCrash = .midFolderSync
            folder?.failNextWrite(of: index)
        case .midFolderSync:
            record("\(device.name) killed")
            try crashNow(index, kind: .idle)
        case .midWrite, .midIngest:
            device.pendingCrash = kind
        }
    }

    /// Kills the device's process with a power cut (unless a mid-write cut `alreadyCut` it):
    /// what was not synced is lost, and the device is restarted on its store after a while.
    func crashNow(_ index: Int, kind: CrashKind, alreadyCut: Bool = false) throws {
        let device = devices[index]
        try cutPower(index, alreadyCut: alreadyCut)
        device.pendingCrash = nil
        coverage.count(.crashes)
        switch kind {
        case .idle: break
        case .midWrite: coverage.count(.crashesMidWrite)
        case .midIngest: coverage.count(.crashesMidIngest)
        case .midFolderSync: coverage.count(.crashesMidFolderSync)
        }
        let downtime = UInt64(random.integer(in: 5_000...max(5_000, configuration.crashes.maxDowntimeSeconds * 1_000)))
        if world.now + downtime < healAt { scheduleIn(downtime, .restart(device: index)) }
    }

    /// The device's process ends: its replica is closed, its connections and the memory they
    /// held for partial bundles go with it.
    func closeProcess(_ index: Int) throws {
        let device = devices[index]
        do {
            try device.replica?.close()
        } catch {
            throw fail(.unexpected, "\(device.name) could not be closed: \(error)")
        }
        try closeConnections(of: index)
        device.replica = nil
        device.bundleBudget = BundleBudget()
    }

    /// Restarts a crashed device on its store, and checks that it lost nothing it had
    /// committed and that the store verifies.
    func restart(_ index: Int) throws {
        let device = devices[index]
        guard !device.isRunning else { return }
        device.replica = try openAfterPowerCut(index)
        dialPeers(of: index)
        coverage.count(.restarts)
        try checkNothingCommittedLost(device)
        try checkRecovered(device, try capture(device))
        try checkSafety(device)
        record("\(device.name) restarted: \(registry.cursors[index]?.count ?? 0) own ops intact, verify ok")
    }
}
