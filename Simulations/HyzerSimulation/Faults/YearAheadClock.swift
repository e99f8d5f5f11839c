/// A phone whose clock jumps a year ahead mid-round (docs/simulation.md, "Clocks"): every
/// other replica holds its ops from the jump on aside, so it is left out of the comparison.
final class YearAheadClock: DeviceFault {
    let device: Int
    /// The jump.
    let step: ClockModel.Step

    init(device: Int, step: ClockModel.Step) {
        self.device = device
        self.step = step
    }

    func leavesOutOfComparison(_ index: Int) -> Bool { index == device }

    func clockSteps(of index: Int) -> [ClockModel.Step] { index == device ? [step] : [] }
}
