import Foundation
import HyzerTestSupport
import Testing

/// `bench --quick --json` keeps working: every figure is produced, finite and not negative, with
/// its baseline where it has one (an idle process may measure zero). Never a timing assertion.
@Suite struct BenchCLITests {
    let directory = TemporaryDirectory("bench")

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
        ] {
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
}
