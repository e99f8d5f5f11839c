/// Everything that happens in the simulated world, as the event loop schedules it.
enum SimulationEvent {
    /// The phones meet at the clubhouse: they sync directly, and the watch is paired.
    case clubhouse
    /// A player does something on a device.
    case workload(WorkloadAction)
    /// A device tries to connect to a peer it dials.
    case dial(from: Int, to: Int)
    /// The head frame on a connection's stream toward one end has crossed.
    case arrive(connection: Int, end: Int)
    /// Time passes for a connection's engines (heartbeats, timeouts).
    case engineTick(connection: Int)
    /// A device's periodic sync through the shared folder.
    case folderSync(device: Int)
    case crash(device: Int, kind: CrashKind)
    case restart(device: Int)
    /// A device's clock steps (already in its `ClockModel`; recorded for the trace and coverage).
    case clockStep(device: Int, deltaMilliseconds: Int64)
    /// The hostile member puts crafted files in the shared folder.
    case hostileFiles
    /// The organizer removes the device from the group.
    case removeMember(device: Int)
    /// A phone's store is copied while closed (an idle restart): the backup it is later restored from.
    case backUp(device: Int)
    /// The phone's store is replaced by its backup, as a user restoring a phone does.
    case restoreBackup(device: Int)
    /// A phone's store is copied (while closed) to the extra device, which starts on it.
    case copyStore(from: Int, to: Int)
    /// A fault begins (an offline period, a partition): recorded for the trace and coverage.
    case note(String, Coverage.Case)
    /// Periodic safety checks of every running replica.
    case checkpoint
    /// Every fault ends.
    case heal
    /// After the heal: have the replicas converged yet?
    case convergenceCheck
}
