extension Simulation {
    /// Runs `request` twice and compares the trace hashes and final digests: a difference is a
    /// determinism failure (something outside the seed reached the simulated world). Returns the
    /// first run, failed when the two differ.
    public static func checkDeterminism(_ request: SimulationRequest, policies: SimulationPolicies = .shipped) -> SimulationResult {
        let first = Simulation(request: request, policies: policies).run()
        let second = Simulation(request: request, policies: policies).run()
        let same =
            first.traceHash == second.traceHash && first.storeDigest == second.storeDigest
            && first.standingsDigest == second.standingsDigest && first.opsCreated == second.opsCreated
        guard !same else { return first }
        let failure = SimulationFailure(
            kind: .determinism,
            message: "two runs of one seed differ: trace \(first.traceHash.prefix(16)) vs \(second.traceHash.prefix(16)), "
                + "digest \(first.storeDigest?.prefix(12) ?? "none") vs \(second.storeDigest?.prefix(12) ?? "none")",
            atSeconds: min(first.simulatedSeconds, second.simulatedSeconds), reproduction: request.commandLine + " --check-determinism",
            plantedBugs: policies.planted)
        return first.with(failure: failure)
    }
}
