/// What the network does to one frame on a TCP stream: a delay (latency, bandwidth, a
/// retransmission after a lost packet, a stall), or a reset of the connection. The stream keeps
/// frames in order and never duplicates them; the caller queues each frame behind the previous
/// one. Draws from its own random stream.
struct NetworkModel {
    /// The fate of one frame.
    struct Fate {
        /// Milliseconds until the frame has crossed, if it is the only one on the stream.
        var delay: UInt64
        /// A lost packet was retransmitted.
        var retransmitted = false
        /// The stream stalled at this frame.
        var stalled = false
        /// The connection is reset: the frame never arrives, and neither does anything after it.
        var reset = false
    }

    let settings: NetworkSettings
    private var random: SimulationRandom
    private(set) var healed = false

    init(settings: NetworkSettings, random: SimulationRandom) {
        self.settings = settings
        self.random = random
    }

    /// After the heal: no loss, no stalls, short delays.
    mutating func heal() { healed = true }

    mutating func fate(bytes: Int) -> Fate {
        let transfer = UInt64(bytes) * 1_000 / UInt64(max(1, settings.bandwidthKilobytesPerSecond) * 1_024)
        if healed {
            return Fate(delay: UInt64(random.integer(in: 1...max(1, min(settings.maxDelayMilliseconds, 500)))) + transfer)
        }
        let low = max(0, settings.minDelayMilliseconds)
        var fate = Fate(delay: UInt64(random.integer(in: low...max(low, settings.maxDelayMilliseconds))) + transfer)
        if random.chance(settings.lossRate) {
            if random.below(8) == 0 {
                fate.reset = true
                return fate
            }
            fate.retransmitted = true
            fate.delay += UInt64(random.integer(in: 200...1_500))
        }
        // A stall is rarer per frame than the rate per message it was drawn as: a live stream
        // carries about ten frames (mostly heartbeats) for each sync a device used to make.
        if random.chance(settings.stragglerRate / 10) {
            fate.stalled = true
            fate.delay += UInt64(random.integer(in: 1_000...max(1_000, settings.stragglerMaxSeconds * 1_000)))
        }
        return fate
    }

    /// A number in `range`: the jitter of a reconnect (`Redialer.nextDelay`).
    mutating func draw(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + UInt64(random.integer(in: 0...Int(clamping: range.upperBound - range.lowerBound)))
    }
}
