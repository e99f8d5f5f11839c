/// A row of block characters, one per value, from `▁` for the smallest to `█` for the largest
/// (all `▄` when every value is the same): a trend that fits on one terminal line.
enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    static func render(_ values: [Int]) -> String {
        guard let low = values.min(), let high = values.max() else { return "" }
        guard high > low else { return String(repeating: "▄", count: values.count) }
        return String(
            values.map { value in
                blocks[(value - low) * (blocks.count - 1) / (high - low)]
            })
    }
}
