/// A benchmark that could not measure what it set out to.
enum BenchError: Error, CustomStringConvertible {
    case simulationFailed(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .simulationFailed(let failure): "the benchmark's simulation failed: \(failure)"
        case .unexpected(let what): "the benchmark failed: \(what)"
        }
    }
}
