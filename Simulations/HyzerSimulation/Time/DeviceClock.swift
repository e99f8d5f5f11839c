import HyzerKit

/// A device's wall clock in the simulated world: true time as the device's `ClockModel`
/// bends it. This is the `WallClock` the device's replica reads for every hybrid-clock tick.
public struct DeviceClock: WallClock {
    public let world: VirtualClock
    public let model: ClockModel

    public init(world: VirtualClock, model: ClockModel) {
        self.world = world
        self.model = model
    }

    public func nowMilliseconds() -> UInt64 {
        model.reading(at: world.now)
    }
}
