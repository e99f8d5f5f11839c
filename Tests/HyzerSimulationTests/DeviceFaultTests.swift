import Testing

@testable import HyzerSimulation

/// The faults played on chosen devices are values in one list, drawn at set-up
/// (docs/simulation.md, "Faults on chosen devices"): each on a device the others leave free, each
/// adding its own clock steps, and each saying whether it leaves its device out of the final
/// comparison.
@Suite struct DeviceFaultTests {
    /// Sets up (without running) a run of `seed` with every device fault pinned on.
    private func setUp(seed: Int) throws -> Simulation {
        let line =
            "hyzer-peer simulate --seed \(seed) --swarm --profile quick --set yearAhead=1 --set hoursBehind=1 "
            + "--set hostileMember=1 --set removedMember=1 --set restoredBackup=1 --set copiedStore=1"
        let simulation = Simulation(request: try #require(SimulationRequest(commandLine: line)))
        try simulation.setUp()
        return simulation
    }

    @Test(arguments: 1...8) func eachFaultOnItsOwnDevice(seed: Int) throws {
        let simulation = try setUp(seed: seed)
        defer { simulation.tearDown() }
        let faults = simulation.deviceFaults
        // Drawn in one order: the clocks, the hostile member, the removal, the forks.
        let kinds = faults.map { String(describing: type(of: $0)) }
        let order = ["YearAheadClock", "HoursBehindClock", "HostileMember", "RemovedMember", "RestoredBackup", "CopiedStore"]
        #expect(kinds == order.filter(kinds.contains), "\(kinds)")
        // The removal is not the organizer's nor the year-ahead phone's (its removal would be
        // held aside); a forked phone plays no other fault, and the two forks are two phones.
        let yearAhead = faults.first(YearAheadClock.self)?.device
        let hostile = faults.first(HostileMember.self)?.device
        let removed = faults.first(RemovedMember.self)?.device
        if let removed { #expect(removed != 0 && removed != yearAhead) }
        let forked = [faults.first(RestoredBackup.self)?.device, faults.first(CopiedStore.self)?.device].compactMap { $0 }
        #expect(Set(forked).count == forked.count)
        for phone in forked { #expect(![0, yearAhead, hostile, removed].contains(phone), "\(kinds): \(phone)") }
        // Each clock fault's steps are in its device's clock, and only there.
        for fault in faults {
            for device in simulation.devices where device.index < simulation.configuration.deviceCount {
                let steps = Set(device.clock.model.steps)
                #expect(fault.clockSteps(of: device.index).allSatisfy(steps.contains))
            }
        }
        if let yearAhead = faults.first(YearAheadClock.self) {
            #expect(yearAhead.step.deltaMilliseconds == Int64(Simulation.yearMilliseconds))
            #expect(faults.leaveOutOfComparison(yearAhead.device))
        }
        // The copy runs on an extra device with its source's key.
        if let copied = faults.first(CopiedStore.self) {
            let copy = try #require(copied.copy)
            #expect(simulation.devices[copy].keys.publicKey == simulation.devices[copied.device].keys.publicKey)
        }
        // The removed phone is compared until the organizer removes it, and left out after.
        guard let removal = faults.first(RemovedMember.self) else { return }
        #expect(!faults.leaveOutOfComparison(removal.device))
        removal.through = 3
        #expect(faults.leaveOutOfComparison(removal.device))
        #expect(!faults.leaveOutOfComparison(0))
    }

    @Test func aRunWithoutDeviceFaultsHasAnEmptyList() throws {
        let line =
            "hyzer-peer simulate --seed 2 --swarm --profile quick --set yearAhead=0 --set hoursBehind=0 "
            + "--set hostileMember=0 --set removedMember=0 --set restoredBackup=0 --set copiedStore=0"
        let simulation = Simulation(request: try #require(SimulationRequest(commandLine: line)))
        try simulation.setUp()
        defer { simulation.tearDown() }
        #expect(simulation.deviceFaults.isEmpty)
        #expect(!simulation.devices.contains { simulation.deviceFaults.leaveOutOfComparison($0.index) })
    }
}
