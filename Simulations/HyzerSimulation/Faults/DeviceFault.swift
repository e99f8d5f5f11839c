/// A fault played on chosen devices of a run, drawn from the seed at set-up (docs/simulation.md,
/// "Faults"): a clock a year ahead or hours behind, a hostile member, a removed member, a
/// restored backup, a copied store. Each is a small type holding what it drew and what it learns
/// while the run goes on; the run keeps them as a list, `Simulation.deviceFaults`.
///
/// Faults of the network (offline periods, partitions, outages) and crashes are not here: they
/// are windows in the `FaultSchedule` and events on the queue.
protocol DeviceFault: AnyObject {
    /// The device the fault is played on.
    var device: Int { get }
    /// Whether the final comparison leaves `index` out: its replica rightly holds another op
    /// set than the others (it stays checked for safety).
    func leavesOutOfComparison(_ index: Int) -> Bool
    /// The steps the fault adds to `index`'s clock.
    func clockSteps(of index: Int) -> [ClockModel.Step]
}

extension DeviceFault {
    func leavesOutOfComparison(_ index: Int) -> Bool { false }
    func clockSteps(of index: Int) -> [ClockModel.Step] { [] }
}

extension Array where Element == any DeviceFault {
    /// The run's fault of type `kind`, if it plays one (a run plays each at most once).
    func first<Fault: DeviceFault>(_ kind: Fault.Type) -> Fault? {
        lazy.compactMap { $0 as? Fault }.first
    }

    /// Whether a fault leaves `index` out of the final comparison.
    func leaveOutOfComparison(_ index: Int) -> Bool {
        contains { $0.leavesOutOfComparison(index) }
    }

    /// Whether some fault is played on `index`.
    func play(on index: Int) -> Bool {
        contains { $0.device == index }
    }
}
