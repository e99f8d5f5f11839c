import Foundation
import HyzerKit
import HyzerSync

extension Simulation {
    /// A device runs the real `FolderSync` against its view of the simulated folder.
    func folderSync(_ index: Int) throws {
        let device = devices[index]
        let interval = UInt64(configuration.folder.syncIntervalSeconds * 1_000)
        let next = schedule.healed ? min(interval, 60_000) : interval
        scheduleIn(UInt64(random.integer(in: Int(next / 2)...Int(next * 3 / 2))), .folderSync(device: index))
        guard let store = folder, device.isRunning, !schedule.isOffline(index, at: world.now) else { return }
        let before = store.counters
        _ = store.takeBundlesRead(observer: index)
        let report: FolderSyncReport
        do {
            report = try FolderSync(replica: device.running, folder: SimulatedFolder(store: store, observer: index)).run()
        } catch let error as FolderError where device.pendingCrash == .midFolderSync {
            // Killed while writing: the receipts the sync signed before it wrote are committed,
            // ops of its own the registry records as it does a command's before the power goes.
            if !(try capture(device)).isEmpty { coverage.count(.receiptsAfterFolderFinish) }
            record("\(device.name) killed mid-folder-sync: \(error.reason)")
            try crashNow(index, kind: .midFolderSync)
            return
        } catch {
            throw fail(.unexpected, "\(device.name) folder sync failed: \(error)")
        }
        coverage.count(.folderSyncs)
        let refused = Set(report.rejected.map(\.file))
        try checkNothingDropped(index, bundles: store.takeBundlesRead(observer: index).filter { !refused.contains($0.path) })
        if report.opsIngested > 0 { links.changed.insert(index) }
        // The folder sync signed this device's receipts of the rounds whose finish it brought
        // (`Replica.afterIngest`, as on the shipped path), ops of its own the registry records as
        // it does a command's.
        if report.finishesIngested > 0, !(try capture(device)).isEmpty { coverage.count(.receiptsAfterFolderFinish) }
        if report.opsPending > 0 { coverage.count(.gapsKeptPending) }
        coverage.count(.folderRejections, report.rejected.count)
        if let hostile, !hostile.filePaths.isEmpty {
            let refused = report.rejected.map(\.file) + report.ignored
            coverage.count(.hostileFilesRefused, refused.filter { path in hostile.filePaths.contains { path.hasPrefix($0) } }.count)
        }
        outcome.bytesSent += report.bytesWritten
        let after = store.counters
        coverage.count(.filesWritten, after.filesWritten - before.filesWritten)
        coverage.count(.filesHalfWrittenRead, after.halfWrittenReads - before.halfWrittenReads)
        coverage.count(.filesDuplicated, after.duplicatesDelivered - before.duplicatesDelivered)
        coverage.count(.filesOutOfOrder, after.outOfOrderArrivals - before.outOfOrderArrivals)
        coverage.count(.filesLate, after.lateArrivals - before.lateArrivals)
        coverage.count(.temporaryFilesSeen, after.temporaryFilesShown - before.temporaryFilesShown)
        record(
            "folder \(device.name) members=\(report.members) read=\(report.bundlesRead) skipped=\(report.bundlesSkipped) "
                + "ingested=\(report.opsIngested) held=\(report.opsAlreadyHeld) pending=\(report.opsPending) wrote=\(report.bundlesWritten) "
                + "deleted=\(report.bundlesDeleted) rejected=\(report.rejected.count) ignored=\(report.ignored.count)")
    }

    /// What a folder sync read is now applied or kept aside, as over a connection: the bundles
    /// it read and did not report refused or waiting, each checked like a bundle received live.
    /// Files it could not open (half written, sealed under an epoch it lacked then, a removed
    /// device's) and the hostile member's (refused whole) gave it nothing.
    private func checkNothingDropped(_ index: Int, bundles: [(path: String, bytes: [UInt8])]) throws {
        guard !bundles.isEmpty else { return }
        var group: GroupMembership?
        var segments: [AuthorSegment] = []
        for file in bundles {
            let key = "\(file.path)#\(file.bytes.count)"
            if openedBundles[key] == nil, group == nil { group = try devices[index].running.group() }
            guard let bundle = openedBundles[key] ?? group.flatMap({ try? BundleFiles.open(file.bytes, group: $0) }) else { continue }
            openedBundles[key] = bundle
            guard hostile.map({ bundle.sender != devices[$0.device].author }) ?? true else { continue }
            segments += bundle.segments
        }
        try checkNothingDropped(devices[index], segments, vector: vector(of: index))
    }
}
