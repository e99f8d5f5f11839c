import Foundation
import HyzerSimulation
import HyzerTestSupport
import Testing

/// The scenario `hyzer-peer simulate --seed N` runs: 18 holes over three hours.
@Suite struct DefaultScenarioTests {
    @Test func eighteenHolesWithAWatchConverge() {
        let result = Simulation(request: SimulationRequest(seed: 1, overrides: .init(watch: true))).run()
        #expect(result.passed, "\(result.failure?.description ?? "")")
        #expect(result.configuration.holes == 18)
        #expect(result.devices == 6)
        #expect(result.healSeconds == 3 * 3_600)
        #expect(result.coverage[.roundsFinished] >= 1)
        #expect(result.coverage[.silentMerges] > 0)
        #expect(result.coverage[.watchScores] > 0)
        #expect(result.coverage[.exactTieCourseEdits] > 0)
    }

    @Test func commandLinePrintsTheDocumentedJSON() throws {
        let store = TemporaryDirectory("sim-cli")
        let run = try BinaryRunner(store: store.url).run("simulate", "--seed", "4", "--swarm", "--profile", "quick", "--json")
        #expect(run.status == 0, "\(run)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        for key in [
            "seed", "converged", "traceHash", "standingsDigest", "simulatedSeconds", "opsCreated", "bytesSent", "coverage", "reproduction",
        ] {
            #expect(json[key] != nil, "missing \(key)")
        }
        #expect(json["converged"] as? Bool == true)
        #expect(json["reproduction"] as? String == "hyzer-peer simulate --seed 4 --swarm --profile quick")
    }

    @Test func swarmCommandPrintsRunsAndASummary() throws {
        let store = TemporaryDirectory("sim-cli")
        let run = try BinaryRunner(store: store.url).run("simulate", "--seeds", "2", "--seed", "20", "--profile", "quick", "--json")
        #expect(run.status == 0, "\(run)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let runs = try #require(json["runs"] as? [[String: Any]])
        #expect(runs.map { $0["seed"] as? Int } == [20, 21])
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["passed"] as? Int == 2)
    }

    @Test func badKnobsAreRefused() throws {
        let store = TemporaryDirectory("sim-cli")
        let run = try BinaryRunner(store: store.url).run("simulate", "--phones", "0")
        #expect(run.status != 0)
        #expect(run.stderr.contains("--phones"))
        let mesh = try BinaryRunner(store: store.url).run("simulate", "--phones", "100")
        #expect(mesh.status != 0)
        #expect(mesh.stderr.contains("--phones must be 1 to 12"), "only a tournament's hub world holds 100 phones")
        let unknown = try BinaryRunner(store: store.url).run("simulate", "--scenario", "league")
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("--scenario must be one of standard, partition, tournament"))
    }
}
