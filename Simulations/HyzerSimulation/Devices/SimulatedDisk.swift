import CSimulatedDisk
import Foundation
import HyzerKit

/// One device's disk (docs/simulation.md, "The simulated disk"): the files of its store
/// directory live in memory in the simulator's SQLite VFS, where a write is durable only once
/// its file is synced. A power cut drops every write no sync made durable and may tear the
/// last one; a read can be made to fail. The simulator makes every choice with its seeded
/// random; the disk draws nothing.
struct SimulatedDisk {
    /// The store directory whose files this disk holds.
    let directory: URL

    /// Where the simulated devices' databases live: the VFS, registered on first use.
    static var medium: DatabaseMedium {
        _ = hyzer_simdisk_register()
        return .vfs(HYZER_SIMDISK_VFS_NAME)
    }

    /// The disk of the files under `directory`, which does what `rule` says at a sync.
    init(directory: URL, rule: DiskRule = .honest) {
        _ = hyzer_simdisk_register()
        self.directory = directory
        hyzer_simdisk_attach(directory.path, rule == .honest ? HyzerDiskSyncHonoured : HyzerDiskSyncIgnoredForWAL)
    }

    /// What the disk did so far.
    var counters: HyzerDiskCounters { hyzer_simdisk_counters(directory.path) }

    /// Cuts the power now; `tearKeeping` is the share in thousandths of the last unsynced write
    /// that still reaches the disk (nil: none of it).
    func cutPower(tearKeeping: Int?) {
        hyzer_simdisk_cut_power(directory.path, Int32(tearKeeping ?? -1))
    }

    /// The power goes at the `operation`-th write or sync from now (1 = the next).
    func armPowerCut(atOperation operation: Int, tearKeeping: Int?) {
        hyzer_simdisk_arm_power_cut(directory.path, Int64(operation), Int32(tearKeeping ?? -1))
    }

    /// Disarms the armed power cut; true when it had happened.
    func disarmPowerCut() -> Bool { hyzer_simdisk_disarm_power_cut(directory.path) != 0 }

    /// The `read`-th read from now (1 = the next) fails with an I/O error.
    func armReadFailure(atRead read: Int) { hyzer_simdisk_arm_read_failure(directory.path, Int64(read)) }

    /// Disarms the armed read failure; true when it had happened.
    func disarmReadFailure() -> Bool { hyzer_simdisk_disarm_read_failure(directory.path) != 0 }

    /// Copies the files under `from` to `to` (a closed store's backup or copy), durable.
    static func copy(_ from: URL, to: URL) { hyzer_simdisk_copy(from.path, to.path) }

    /// Forgets every disk and file under `root` (the end of a run).
    static func forget(_ root: URL) { hyzer_simdisk_detach(root.path) }
}
