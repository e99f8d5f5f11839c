import HyzerKit

/// A device's wall clock in the simulated world: true time as the device's `ClockModel`
/// bends it. This is the `WallClock` the device's replica reads for every hybrid-clock tick.
public struct DeviceClock: WallClock {
    /// True time.
    public let world: VirtualClock
    /// How this device's clock departs from it.
    public let model: ClockModel

    /// The clock `model` makes of `world`.
    public init(world: VirtualClock, model: ClockModel) {
        self.world = world
        self.model = model
    }

    /// The device's reading now.
    public func nowMilliseconds() -> UInt64 {
        model.reading(at: world.now)
    }
}
