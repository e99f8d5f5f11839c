/// One measured figure beside its in-run baseline.
public struct Figure: Encodable, Sendable {
    public let name: String
    /// The median over the repetitions.
    public let value: Double
    public let unit: String
    public let baseline: Double?
    public let baselineName: String?
    /// How the value compares with the baseline, oriented so that higher is better for us.
    public let ratio: Double?
    /// The target, as text (`≥ 0.85× baseline`, `≤ 128 B`).
    public let target: String?
    public let met: Bool?
    /// (max − min) / median over the repetitions; 0 for a single deterministic measurement.
    public let spread: Double
}

/// Median and spread of repeated measurements.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var spread: Double {
        guard let low = values.min(), let high = values.max(), median > 0 else { return 0 }
        return (high - low) / median
    }
}
