import Foundation

/// The simulator's only source of randomness: xoshiro256** (Blackman and Vigna, 2018), seeded
/// through SplitMix64 so that any 64-bit seed gives a well-mixed state.
///
/// Every choice of a run — the configuration a swarm draws, keys, group ids, delays, losses,
/// clock steps, crashes, scores — comes from one of these, derived from the run's seed. The
/// system's generator, `UUID()` and `Date()` never reach the simulated world. The helpers are
/// written here rather than borrowed from the standard library (`Int.random(in:using:)`), so
/// that their output cannot change with a Swift release.
public struct SimulationRandom: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator whose whole sequence follows from `seed`.
    public init(seed: UInt64) {
        var mixer = seed
        func splitMix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }

    /// An independent generator for one part of the world, so that drawing more numbers in one
    /// part never shifts the numbers another part sees.
    public mutating func fork(_ label: UInt64) -> SimulationRandom {
        SimulationRandom(seed: next() ^ (label &* 0xD1B5_4A32_D192_ED03))
    }

    /// A number in `0..<bound` (`bound` > 0), without modulo bias.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "an empty range has no element")
        let range = UInt64(bound)
        let limit = UInt64.max - UInt64.max % range
        while true {
            let value = next()
            if value < limit { return Int(value % range) }
        }
    }

    /// An integer in `range`.
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// A 64-bit integer in `range`.
    public mutating func integer(in range: ClosedRange<UInt64>) -> UInt64 {
        let width = range.upperBound - range.lowerBound
        if width == UInt64.max { return next() }
        let span = width + 1
        let limit = UInt64.max - UInt64.max % span
        while true {
            let value = next()
            if value < limit { return range.lowerBound + value % span }
        }
    }

    /// A number in `[0, 1)` with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && unit() < probability
    }

    /// A number spread evenly over `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// A number whose logarithm is spread evenly over `range`'s (both bounds > 0): rates drawn
    /// this way differ by orders of magnitude from one seed to the next.
    public mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        let logLow = Foundation.log(range.lowerBound)
        let logHigh = Foundation.log(range.upperBound)
        return Foundation.exp(logLow + unit() * (logHigh - logLow))
    }

    /// One element of a non-empty array.
    public mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// The elements in an order drawn by Fisher–Yates.
    public mutating func shuffled<Element>(_ elements: [Element]) -> [Element] {
        var result = elements
        var index = result.count - 1
        while index > 0 {
            result.swapAt(index, below(index + 1))
            index -= 1
        }
        return result
    }

    /// `count` random bytes (keys, group ids and secrets of simulated devices).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }
}
