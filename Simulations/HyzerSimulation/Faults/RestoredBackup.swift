/// A phone restored from an old backup: its store forgets what it wrote since, and its log
/// forks (docs/simulation.md, "A restored backup").
final class RestoredBackup: DeviceFault {
    let device: Int
    /// When the backup is taken and when it is restored.
    let backUpAt: UInt64
    let restoreAt: UInt64
    /// The phone's cursor in the registry when the backup was taken.
    var cursor: OpRegistry.Cursor?

    init(device: Int, backUpAt: UInt64, restoreAt: UInt64) {
        self.device = device
        self.backUpAt = backUpAt
        self.restoreAt = restoreAt
    }
}
