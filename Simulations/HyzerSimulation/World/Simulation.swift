import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// One run of the simulated world: real replicas (temporary SQLite stores, signed op logs,
/// bundles, ingest, folder sync) driven by a virtual clock and one seed.
///
/// `run()` is synchronous and single-threaded. The devices run `policies`, the shipped rules
/// unless a test plants a bug. The same request and policies on the same build always give
/// the same `traceHash`.
public final class Simulation {
    /// What was asked for: the seed, swarm drawing and overrides.
    public let request: SimulationRequest
    /// The configuration the request resolves to.
    public let configuration: SimulationConfiguration
    /// The rules the devices run.
    public let policies: SimulationPolicies
    let world: VirtualClock
    let start: UInt64
    /// When every fault ends.
    let healAt: UInt64

    var random: SimulationRandom
    var workloadRandom: SimulationRandom
    var network: NetworkModel
    var schedule = FaultSchedule()
    var queue = EventQueue<SimulationEvent>()
    var devices: [SimulatedDevice] = []
    /// The group every device joins.
    let group: GroupMembership
    /// Phone 0's keys when it organizes the group (a run with a removal needs an organizer: the
    /// group's id names its key).
    let organizerKeys: SigningKeyPair?
    var folder: SimulatedFolderStore?
    var registry = OpRegistry()
    var coverage = Coverage()
    var trace: Trace
    var plan = WorkloadPlan()
    /// Connections, redialers and devices with news.
    var links = LinkTable()
    /// Convergence, digests and bytes sent, as the run finds them.
    var outcome = RunOutcome()
    /// The run's directory, once set up.
    var root: URL?
    var lastProgress = 0.0
    /// Checkpoints so far: which replica the next one verifies in full.
    var checkpoints = 0
    /// The ops the latest command created.
    var lastCaptured: [OpRegistry.Entry] = []
    /// The faults played on chosen devices, in the order they were drawn.
    var deviceFaults: [any DeviceFault] = []
    /// The invitation the organizer admits every device with, in a group with an organizer.
    var setUpInvitation: Invitation?
    /// Bundle files the folder checks opened, by path and size (a file's name is the hash of its
    /// content; a half-written read is shorter): each is opened once, not once per reader.
    var openedBundles: [String: HyzerSync.Bundle] = [:]

    /// Called now and then with the share of the run done (0…1), for a progress bar.
    public var progress: ((Double) -> Void)?

    /// A run of `request`; `keepTrace` keeps every trace line (`traceLines`).
    public init(request: SimulationRequest, policies: SimulationPolicies = .shipped, keepTrace: Bool = false) {
        self.request = request
        self.policies = policies
        configuration = request.configuration
        world = VirtualClock()
        start = world.now
        healAt = start + configuration.workloadMilliseconds
        var seedRandom = SimulationRandom(seed: configuration.seed)
        var random = seedRandom.fork(1)
        let randomID = UUID(hashPrefix: random.bytes(16))
        let secret = random.bytes(GroupMembership.secretBytes)
        organizerKeys = configuration.removedMember ? SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes)) : nil
        group = GroupMembership(id: organizerKeys.map { GroupMembership.groupID(organizer: $0.author) } ?? randomID, secret: secret)
        self.random = random
        workloadRandom = seedRandom.fork(2)
        network = NetworkModel(settings: configuration.network, random: seedRandom.fork(3))
        trace = Trace(keepsLines: keepTrace)
    }

    /// Every trace line, when the run kept them.
    public var traceLines: [String] { trace.lines }

    /// Runs the world to convergence or to the first failed check, then removes the stores.
    public func run() -> SimulationResult {
        let wallStart = ContinuousClock.now
        var failure: SimulationFailure?
        do {
            if let problem = configuration.problem() { throw fail(.unexpected, problem) }
            try setUp()
            while outcome.convergedAt == nil, let (time, event) = queue.pop() {
                world.advance(to: time)
                try handle(event)
                try announceChanges()
                reportProgress()
            }
            if outcome.convergedAt == nil { throw fail(.convergence, "the event queue ran dry before convergence") }
        } catch let found as SimulationFailure {
            failure = found
            trace.record(elapsed, "FAILURE \(found.kind): \(found.message)")
        } catch {
            failure = fail(.unexpected, "\(error)")
            trace.record(elapsed, "FAILURE unexpected: \(error)")
        }
        tearDown()
        let wall = ContinuousClock.now - wallStart
        return SimulationResult(
            seed: configuration.seed, converged: outcome.convergedAt != nil && failure == nil, traceHash: trace.hex,
            standingsDigest: failure == nil ? outcome.standingsDigest : nil, storeDigest: failure == nil ? outcome.storeDigest : nil,
            simulatedSeconds: Double(elapsed) / 1_000, healSeconds: Double(healAt - start) / 1_000, opsCreated: registry.total,
            finalLeaderboardSeconds: failure == nil ? finalLeaderboardSeconds : nil,
            lastFinishSeconds: outcome.lastFinishAt.map { Double($0 - start) / 1_000 }, bytesSent: outcome.bytesSent, events: trace.count,
            devices: configuration.deviceCount, configuration: configuration,
            coverage: coverage, failure: failure, reproduction: request.commandLine,
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }

    /// Simulated seconds from the last round's finish until every compared replica held its final
    /// op set (and so showed the final leaderboard); nil before convergence or without a finish.
    private var finalLeaderboardSeconds: Double? {
        guard let lastFinishAt = outcome.lastFinishAt, let finalViewsAt = outcome.finalViewsAt else { return nil }
        return Double(finalViewsAt.minus(lastFinishAt)) / 1_000
    }

    /// The run's fault of each kind, if it plays one.
    var yearAhead: YearAheadClock? { deviceFaults.first(YearAheadClock.self) }
    var hostile: HostileMember? { deviceFaults.first(HostileMember.self) }
    var removal: RemovedMember? { deviceFaults.first(RemovedMember.self) }
    var restored: RestoredBackup? { deviceFaults.first(RestoredBackup.self) }
    var copied: CopiedStore? { deviceFaults.first(CopiedStore.self) }

    /// The latest trace lines: a failure's context.
    public var recentTrace: [String] { trace.recent }

    private func handle(_ event: SimulationEvent) throws {
        switch event {
        case .clubhouse: try clubhouse()
        case .workload(let action): try perform(action)
        case .dial(let from, let to): try dial(from, to)
        case .arrive(let connection, let end): try arrive(connection, end)
        case .engineTick(let connection): try engineTick(connection)
        case .folderSync(let device): try folderSync(device)
        case .crash(let device, let kind): try crash(device, kind)
        case .restart(let device): try restart(device)
        case .clockStep(let device, let delta):
            coverage.count(Self.coverageCase(ofStep: delta))
            record("clock \(devices[device].name) steps \(delta >= 0 ? "+" : "")\(delta)ms")
        case .note(let text, let item):
            coverage.count(item)
            record(text)
        case .hostileFiles: try writeHostileFiles()
        case .removeMember(let device): try removeMember(device)
        case .backUp(let device): try backUp(device)
        case .restoreBackup(let device): try restoreBackup(device)
        case .copyStore(let source, let copy): try copyStore(source, to: copy)
        case .checkpoint: try checkpoint()
        case .heal: try heal()
        case .convergenceCheck: try convergenceCheck()
        }
    }

    // MARK: Helpers

    /// Simulated milliseconds since the start.
    var elapsed: UInt64 { world.now - start }

    func record(_ line: String) {
        trace.record(elapsed, line)
    }

    /// A failure of `kind` now, carrying the reproduction line.
    func fail(_ kind: SimulationFailure.Kind, _ message: String) -> SimulationFailure {
        SimulationFailure(
            kind: kind, message: message, atSeconds: Double(elapsed) / 1_000, reproduction: request.commandLine,
            plantedBugs: policies.planted)
    }

    func scheduleIn(_ delay: UInt64, _ event: SimulationEvent) {
        queue.schedule(event, at: world.now + delay)
    }

    private func reportProgress() {
        guard let progress else { return }
        let done = min(1, Double(elapsed) / Double(max(1, healAt - start)))
        if done - lastProgress >= 0.01 {
            lastProgress = done
            progress(done)
        }
    }

    func tearDown() {
        countDiskFaults()
        for device in devices {
            try? device.replica?.close()
            device.replica = nil
        }
        if let root {
            try? FileManager.default.removeItem(at: root)
            SimulatedDisk.forget(root)
        }
    }
}
