/// A small seeded generator (SplitMix64, Steele, Lea and Flood 2014) so that every "random"
/// test is the same on every run and machine. Tests never use the system's generator.
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0; the modulo bias does not matter here).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "an empty range has no element")
        return Int(next() % UInt64(bound))
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    public mutating func pick<Element>(_ elements: [Element]) -> Element { elements[below(elements.count)] }

    /// A Fisher–Yates shuffle driven by this generator only.
    public mutating func shuffled<Element>(_ elements: [Element]) -> [Element] {
        var result = elements
        var index = result.count - 1
        while index > 0 {
            result.swapAt(index, below(index + 1))
            index -= 1
        }
        return result
    }

    /// `elements` cut into consecutive batches of 1 to `maximum` elements.
    public mutating func batches<Element>(_ elements: [Element], maximum: Int) -> [[Element]] {
        var rest = elements[...]
        var batches: [[Element]] = []
        while !rest.isEmpty {
            let count = 1 + below(min(maximum, rest.count))
            batches.append(Array(rest.prefix(count)))
            rest = rest.dropFirst(count)
        }
        return batches
    }

    /// `count` bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
