/// A device whose clock runs hours behind from the start until the heal puts it right.
final class HoursBehindClock: DeviceFault {
    let device: Int
    /// The step back at the start and the step forward at the heal.
    let steps: [ClockModel.Step]

    init(device: Int, steps: [ClockModel.Step]) {
        self.device = device
        self.steps = steps
    }

    func clockSteps(of index: Int) -> [ClockModel.Step] { index == device ? steps : [] }
}
