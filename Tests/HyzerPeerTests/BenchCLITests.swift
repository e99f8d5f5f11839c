import Foundation
import HyzerTestSupport
import Testing

/// `bench --quick --json` keeps working: every figure is produced, finite and not negative, with
/// its baseline where it has one (an idle process may measure zero). Never a timing assertion.
@Suite struct BenchCLITests {
    let directory = TemporaryDirectory("bench")

    /// The bucket figures, where SeaweedFS's `weed` is installed (and always under CI, where the run fails without it).
    let bucketFigures =
        SeaweedFS.executable != nil || SeaweedFS.underCI
        ? [
            "bucket sync, nothing new (5 devices), requests", "bucket sync, one new bundle, a reader (5 devices), bytes received",
            "5 devices converge on one round through the bucket, passes",
        ] : []

    @Test func quickBenchProducesSaneFigures() throws {
        let result = try BinaryRunner(store: directory.path("unused")).run("bench", "--quick", "--json")
        #expect(result.status == 0, "\(result)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((document["machine"] as? String)?.contains("cores") == true)
        let figures = try #require(document["figures"] as? [[String: Any]])
        let names = figures.compactMap { $0["name"] as? String }
        for expected in [
            "ingest", "verification", "bundle size", "store size", "live latency p50 (100 ops)", "idle serve CPU (1 s)",
            "open store + history", "folder sync, nothing new (8 devices)", "folder sync, one new bundle (8 devices)",
            "no-op sync (8 devices, 9 authors)", "serve holding 8 live peers, resident memory", "score to 8 live peers p99 (3 scores)",
            "score to the last of 8 live peers p99 (3 scores)", "sync bytes, 1000 authors, 100 differing",
            "sync time, 150 authors, 0 differing", "store size, 25 rounds written as devices write",
            "serve holding 50 live peers, CPU (1 s)", "serve holding 50 live peers, resident memory",
        ] + bucketFigures {
            #expect(names.contains(expected), "missing figure \(expected) in \(names)")
        }
        for figure in figures {
            let value = try #require(figure["value"] as? Double)
            #expect(value.isFinite && value >= 0, "\(figure)")
            if let baseline = figure["baseline"] as? Double {
                #expect(baseline.isFinite && baseline >= 0, "\(figure)")
                if baseline > 0 && value > 0 { #expect((figure["ratio"] as? Double).map { $0 > 0 } == true, "\(figure)") }
                #expect(figure["baselineName"] is String, "\(figure)")
            }
            #expect((figure["spread"] as? Double).map { $0 >= 0 } == true, "\(figure)")
        }
    }

    /// The cost curve's drawing is written by the run: one line per group size, and the floor.
    @Test func theCostCurveIsDrawnByTheRun() throws {
        let plot = directory.path("curve.svg")
        let result = try BinaryRunner(store: directory.path("unused")).run("bench", "--only", "curve", "--plot", plot.path)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("sync bytes, 150 authors, 1 differing"))
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 4, "three group sizes and the floor")
        for label in ["10 authors", "150 authors", "1000 authors", "the missing ops"] { #expect(svg.contains(label)) }
    }
}
