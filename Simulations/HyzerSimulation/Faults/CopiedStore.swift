/// A phone whose store is copied to an extra device that runs it with the same key
/// (docs/simulation.md, "A copied store").
final class CopiedStore: DeviceFault {
    /// The phone whose store is copied.
    let device: Int
    /// The extra device that runs the copy, once set up.
    var copy: Int?

    init(device: Int) {
        self.device = device
    }
}
