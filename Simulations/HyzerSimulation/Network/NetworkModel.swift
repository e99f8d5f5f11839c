/// What the network does to one message: lose it, delay it, deliver it twice, let later
/// messages overtake it. Draws from its own random stream.
struct NetworkModel {
    /// The fate of one message: no copy (lost), one, or two (duplicated), each with its delay.
    struct Fate {
        var delays: [UInt64]
        var lost: Bool { delays.isEmpty }
        var duplicated: Bool { delays.count > 1 }
        var straggled: Bool
    }

    let settings: NetworkSettings
    private var random: SimulationRandom
    private(set) var healed = false

    init(settings: NetworkSettings, random: SimulationRandom) {
        self.settings = settings
        self.random = random
    }

    /// After the heal: no loss, no duplicates, no stragglers, short delays.
    mutating func heal() { healed = true }

    mutating func fate() -> Fate {
        if healed {
            return Fate(delays: [UInt64(random.integer(in: 1...max(1, min(settings.maxDelayMilliseconds, 500))))], straggled: false)
        }
        if random.chance(settings.lossRate) { return Fate(delays: [], straggled: false) }
        var straggled = false
        var delays = [delay(&straggled)]
        if random.chance(settings.duplicateRate) { delays.append(delay(&straggled)) }
        return Fate(delays: delays, straggled: straggled)
    }

    private mutating func delay(_ straggled: inout Bool) -> UInt64 {
        let low = max(0, settings.minDelayMilliseconds)
        var delay = UInt64(random.integer(in: low...max(low, settings.maxDelayMilliseconds)))
        if random.chance(settings.stragglerRate) {
            straggled = true
            delay += UInt64(random.integer(in: 1_000...max(1_000, settings.stragglerMaxSeconds * 1_000)))
        }
        return delay
    }
}
