import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

extension Simulation {
    /// Creates the devices and their stores, draws the workload and every fault, and schedules
    /// the first events: the parts in the order they draw from the seed.
    func setUp() throws {
        let directory = try makeRoot()
        let pairedPhones = drawPairedPhones()
        let folderUsers = drawFolderUsers()
        drawDeviceFaults(relays: Set(pairedPhones + (configuration.phonesUseFolder ? [] : folderUsers)))
        if !folderUsers.isEmpty {
            folder = SimulatedFolderStore(clock: world, settings: configuration.folder, observers: folderUsers, random: random.fork(4))
        }
        try createDevices(in: directory, folderUsers: folderUsers)
        if let copied { try addCopyDevice(for: copied, in: directory) }
        linkDevices(pairedPhones: pairedPhones)
        try drawWorkload(pairedPhones: pairedPhones)
        scheduleCopy()
        queue.schedule(.clubhouse, at: start + 2_000)
        drawFaults()
        scheduleRoutines()
    }

    /// The run's own directory for its stores.
    private func makeRoot() throws -> URL {
        let directory = Self.temporaryRoot().appendingPathComponent(
            "hyzer-sim-\(ProcessInfo.processInfo.processIdentifier)-\(configuration.seed)-\(Self.nextRunNumber())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        root = directory
        return directory
    }

    /// The devices that use the shared folder: every phone, or one drawn phone and the laptop.
    private func drawFolderUsers() -> [Int] {
        var users: [Int] = []
        if configuration.phonesUseFolder {
            users = Array(0..<configuration.phones)
        } else if configuration.laptop {
            users = [random.below(configuration.phones)]
        }
        if configuration.laptop { users.append(laptopIndex) }
        return users
    }

    /// The laptop's index, when there is one: after the phones and the watches.
    private var laptopIndex: Int { configuration.phones + configuration.watches }

    /// The faults played on chosen devices, each on a device the others leave free.
    ///
    /// Not on a phone another device reaches the others only through (`relays`: the watch's, the
    /// folder's bridge): a segment carrying the phone's ops waits whole while its last op is a
    /// year ahead, and the phone sends its own ops as one segment, so such a device would never
    /// get the phone's ops written before the jump that it lacked (docs/simulation.md). Nor the
    /// organizer of a removal: its removal, stamped a year ahead, would be held aside everywhere.
    private func drawDeviceFaults(relays: Set<Int>) {
        let phones = configuration.phones
        let span = configuration.workloadMilliseconds
        let candidates = (0..<phones).filter { !relays.contains($0) && !(configuration.removedMember && $0 == 0) }
        if configuration.clocks.yearAheadClock, !candidates.isEmpty {
            let phone = candidates[random.below(candidates.count)]
            let at = start + 60_000 + random.integer(in: 0...span.minus(120_000))
            deviceFaults.append(YearAheadClock(device: phone, step: .init(at: at, deltaMilliseconds: Int64(Self.yearMilliseconds))))
        }
        let yearAhead = yearAhead?.device
        // Any device but the two whose clocks must agree to the millisecond for the exact tie.
        let tied = configuration.workload.exactTieCourseEdits ? 2 : 0
        if configuration.clocks.hoursBehindClock, configuration.deviceCount > tied {
            let hours = Int64(random.integer(in: 1...6)) * 3_600_000
            let steps = [ClockModel.Step(at: start, deltaMilliseconds: -hours), ClockModel.Step(at: healAt, deltaMilliseconds: hours)]
            deviceFaults.append(HoursBehindClock(device: tied + random.below(configuration.deviceCount - tied), steps: steps))
        }
        // Not a relay, when there is another phone: its connections close on the bundles it crafts.
        if configuration.hostileMember {
            let hostiles = candidates.isEmpty ? Array(0..<phones) : candidates
            deviceFaults.append(HostileMember(device: hostiles[random.below(hostiles.count)]))
        }
        // Not the organizer, not a relay (the watch would lose its only link), not the year-ahead phone.
        if configuration.removedMember {
            let removable = (1..<phones).filter { !relays.contains($0) && $0 != yearAhead }
            if !removable.isEmpty {
                let phone = removable[random.below(removable.count)]
                let removal = RemovedMember(device: phone, at: start + 60_000 + random.integer(in: 0...span.minus(120_000)))
                deviceFaults.append(removal)
                queue.schedule(.removeMember(device: phone), at: removal.at)
            }
        }
        // A phone that forks its log: not a relay, not played by another fault, and not the
        // organizer while a removal is on (its successor is no organizer); one for each fault.
        let hostile = hostile?.device
        let removed = removal?.device
        var forkable = (0..<phones).filter {
            !relays.contains($0) && $0 != yearAhead && $0 != hostile && $0 != removed && !(configuration.removedMember && $0 == 0)
        }
        if configuration.restoredBackup, !forkable.isEmpty {
            let phone = forkable.remove(at: random.below(forkable.count))
            let backUp = start + 60_000 + random.integer(in: 0...(span / 2).minus(60_000))
            let restore = max(backUp + 30_000, start + span / 2 + random.integer(in: 0...(span / 2).minus(120_000)))
            deviceFaults.append(RestoredBackup(device: phone, backUpAt: backUp, restoreAt: restore))
            queue.schedule(.backUp(device: phone), at: backUp)
            queue.schedule(.restoreBackup(device: phone), at: restore)
        }
        // The copy dials every phone but its source; one of them must not be the year-ahead phone,
        // whose segments end in ops every other replica holds aside: reaching the group only
        // through it, the copy would wait for them all, as docs/store.md says a watch would (the
        // soak's seed 3300).
        if configuration.copiedStore, !forkable.isEmpty {
            let phone = forkable[random.below(forkable.count)]
            if (0..<phones).contains(where: { $0 != phone && $0 != yearAhead }) { deviceFaults.append(CopiedStore(device: phone)) }
        }
    }

    /// Every device, its clock and keys drawn, its store created and joined to the group.
    private func createDevices(in directory: URL, folderUsers: [Int]) throws {
        let phones = configuration.phones
        let watchIndices = phones..<phones + configuration.watches
        for index in 0..<configuration.deviceCount {
            let kind: DeviceKind = index < phones ? .phone : watchIndices.contains(index) ? .watch : .laptop
            let name =
                kind == .phone ? "phone-\(index)" : kind == .watch && configuration.watches > 1 ? "watch-\(index - phones)" : kind.rawValue
            let accurate = configuration.workload.exactTieCourseEdits && index < 2
            let clock = DeviceClock(
                world: world, model: drawClock(accurate: accurate, extra: deviceFaults.flatMap { $0.clockSteps(of: index) }))
            let device = SimulatedDevice(
                index: index, name: name, kind: kind, directory: directory.appendingPathComponent(name),
                keys: index == 0
                    ? organizerKeys ?? SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes))
                    : SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes)), clock: clock,
                usesFolder: folderUsers.contains(index), diskRule: policies.disk)
            let owner = kind == .phone ? WorkloadPlan.playerName(index) : nil
            let replica = try Replica.create(
                at: device.directory, name: name, kind: kind, owner: owner, clock: clock, ingestClock: world, keys: device.keys,
                policies: policies.replica, medium: SimulatedDisk.medium)
            if let invitation = setUpInvitation {
                // In a group with an organizer only admitted devices are members: each joins as a
                // real device does (docs/security.md, "Membership").
                try replica.join(with: invitation, through: devices[0].running)
            } else {
                try replica.join(group)
                if organizerKeys != nil {
                    setUpInvitation = try replica.issueInvitation(
                        secret: random.bytes(Invitation.secretBytes), expiresAt: UInt64(Int64.max), uses: OpPayload.Limits.inviteUsesMax)
                }
            }
            device.replica = replica
            device.ownedPlayer = try replica.identity().owner?.id
            devices.append(device)
            try capture(device)
            record(
                "create \(name) \(device.author.short) skew=\(clock.model.skewMilliseconds)ms drift=\(clock.model.driftPartsPerMillion)ppm folder=\(device.usesFolder)"
            )
        }
        if setUpInvitation != nil {
            // The organizer's admissions reach each device before it writes, as a join's first sync brings them.
            try capture(devices[0])
            for device in devices.dropFirst() {
                _ = try device.running.ingest(try devices[0].running.delta(above: try device.running.versionVector()))
            }
        }
    }

    /// The workload: the cards, who scores what and when, and the courses they play.
    private func drawWorkload(pairedPhones: [Int]) throws {
        let watchIndices = configuration.phones..<configuration.phones + configuration.watches
        let watches = zip(watchIndices, pairedPhones).map { (index: $0, phone: $1) }
        plan = WorkloadPlan.draw(configuration, start: start, watches: watches, random: &workloadRandom)
        try addCourses()
        for (time, action) in plan.actions { queue.schedule(.workload(action), at: time) }
    }

    /// The phone each watch is paired with, a different one for each: the first drawn as a
    /// single watch's always was.
    private func drawPairedPhones() -> [Int] {
        let first = random.below(configuration.phones)
        guard configuration.watches > 1 else { return configuration.watches == 1 ? [first] : [] }
        let others = random.shuffled(Array(0..<configuration.phones).filter { $0 != first })
        return [first] + others.prefix(configuration.watches - 1)
    }

    /// Who talks with whom. Each watch dials its phone. Phones dial every phone after them, or
    /// in a hub world only the laptop, which they all dial; a copied store's device dials as its
    /// source would, never the source itself (both hold one key).
    private func linkDevices(pairedPhones: [Int]) {
        let phones = configuration.phones
        let hub = configuration.hub ? phones + configuration.watches : nil
        for phone in 0..<phones {
            devices[phone].peers = hub.map { [$0] } ?? (0..<phones).filter { $0 != phone }
            devices[phone].dials = devices[phone].peers.filter { $0 > phone }
        }
        if let hub { devices[hub].peers = Array(0..<phones) }
        for (offset, phone) in pairedPhones.enumerated() {
            let watch = phones + offset
            devices[watch].peers = [phone]
            devices[watch].dials = [phone]
            devices[watch].pairedPhone = phone
            devices[phone].peers = (devices[phone].peers + [watch]).sorted()
        }
        if let copied, let copy = copied.copy {
            let source = copied.device
            devices[copy].peers = hub.map { [$0] } ?? (0..<phones).filter { $0 != source }
            devices[copy].dials = devices[copy].peers
            for peer in devices[copy].peers { devices[peer].peers.append(copy) }
        }
    }

    /// The cards' courses: seeded ones by id, or one the organizer adds now.
    private func addCourses() throws {
        for index in plan.cards.indices {
            let card = plan.cards[index]
            if let pars = card.customPars {
                let course = try devices[card.organizer].running.addCourse(name: card.courseName, pars: pars)
                try capture(devices[card.organizer])
                plan.cards[index].courseID = course.id
                record("course \(devices[card.organizer].name) adds \(card.courseName) pars=\(pars)")
            } else {
                plan.cards[index].courseID = SeededCourses.all.first { $0.name == card.courseName }?.id
            }
        }
    }

    /// A device clock: skew, drift and steps drawn within the configuration's bounds, and `extra` steps.
    func drawClock(accurate: Bool, extra: [ClockModel.Step]) -> ClockModel {
        let settings = configuration.clocks
        let skew =
            accurate || settings.maxSkewSeconds == 0
            ? 0 : Int64(random.integer(in: -settings.maxSkewSeconds * 1_000...settings.maxSkewSeconds * 1_000))
        let drift =
            accurate || settings.maxDriftPartsPerMillion == 0
            ? 0 : Int64(random.integer(in: -settings.maxDriftPartsPerMillion...settings.maxDriftPartsPerMillion))
        var steps: [ClockModel.Step] = []
        for _ in 0..<settings.stepsPerDevice {
            let at = start + 60_000 + random.integer(in: 0...configuration.workloadMilliseconds.minus(60_000))
            let size = Int64(random.integer(in: 1_000...max(1_000, settings.maxStepSeconds * 1_000)))
            steps.append(ClockModel.Step(at: at, deltaMilliseconds: random.chance(settings.backwardShare) ? -size : size))
        }
        // The heal ends clock steps like every other fault (the device's time service puts it
        // right): a receiver holds ops stamped ahead of its own clock until the clock gets there,
        // so steps that pile up to an hour behind would hold ops past the convergence bound.
        let stepped = steps.reduce(Int64(0)) { $0 + $1.deltaMilliseconds }
        if stepped != 0 { steps.append(ClockModel.Step(at: healAt, deltaMilliseconds: -stepped)) }
        steps += extra
        return ClockModel(origin: start, skewMilliseconds: skew, driftPartsPerMillion: drift, steps: steps)
    }

    /// Offline periods, partitions, Wi-Fi outages, the watches' trips out of range, crashes,
    /// clock steps.
    private func drawFaults() {
        let settings = configuration.network
        let span = configuration.workloadMilliseconds
        func window(maxMinutes: Int) -> TimeWindow {
            let length = UInt64(random.integer(in: 30_000...max(30_000, maxMinutes * 60_000)))
            let begin = start + 60_000 + random.integer(in: 0...span.minus(60_000))
            return TimeWindow(start: begin, end: begin + length)
        }
        func offline(_ device: Int, _ window: TimeWindow) {
            schedule.addOffline(device: device, window: window)
            queue.schedule(
                .note("offline \(devices[device].name) for \((window.end - window.start) / 1_000)s", .offlinePeriods), at: window.start)
        }
        for _ in 0..<settings.offlinePeriods {
            offline(random.below(devices.count), window(maxMinutes: settings.maxOfflineMinutes))
        }
        if configuration.workload.finishWhileOffline, devices.count > 1 {
            for (card, time) in plan.finishTimes {
                let candidates = devices.indices.filter { $0 != plan.cards[card].organizer }
                let device = candidates[random.below(candidates.count)]
                let before = UInt64(random.integer(in: 30_000...20 * 60_000))
                let after = UInt64(random.integer(in: 60_000...max(60_000, settings.maxOfflineMinutes * 60_000)))
                offline(device, TimeWindow(start: max(start, time > before ? time - before : time), end: time + after))
            }
        }
        let phones = configuration.phones
        for _ in 0..<(phones >= 2 ? settings.partitions : 0) {
            var side = Set(random.shuffled(Array(0..<phones)).prefix(random.integer(in: 1...phones - 1)))
            for watch in devices where watch.kind == .watch && side.contains(watch.pairedPhone ?? -1) { side.insert(watch.index) }
            let span = window(maxMinutes: settings.maxPartitionMinutes)
            schedule.addPartition(.symmetric(side: side, window: span))
            queue.schedule(
                .note("partition \(side.sorted().map { devices[$0].name }) | rest for \((span.end - span.start) / 1_000)s", .partitions),
                at: span.start)
        }
        let linked = devices.flatMap { device in device.peers.map { (device.index, $0) } }
        for _ in 0..<(linked.isEmpty ? 0 : settings.oneWayPartitions) {
            let (from, to) = linked[random.below(linked.count)]
            let span = window(maxMinutes: settings.maxPartitionMinutes)
            schedule.addPartition(.oneWay(from: from, to: to, window: span))
            queue.schedule(
                .note(
                    "one-way partition \(devices[from].name) -> \(devices[to].name) for \((span.end - span.start) / 1_000)s",
                    .oneWayPartitions), at: span.start)
        }
        for watch in devices where watch.kind == .watch {
            for _ in 0..<settings.watchOutOfRangePeriods {
                let span = window(maxMinutes: 20)
                schedule.addWatchAway(watch: watch.index, window: span)
                queue.schedule(
                    .note("\(watch.name) out of range for \((span.end - span.start) / 1_000)s", .watchOutOfRange), at: span.start)
            }
        }
        for _ in 0..<settings.outages {
            let length = UInt64(random.integer(in: 30_000...90_000))
            let begin = start + 60_000 + random.integer(in: 0...span.minus(60_000))
            schedule.addOutage(TimeWindow(start: begin, end: begin + length))
            queue.schedule(.note("Wi-Fi down for \(length / 1_000)s", .outages), at: begin)
        }
        drawCrashes()
        for device in devices {
            for step in device.clock.model.steps where step.at < healAt {
                queue.schedule(.clockStep(device: device.index, deltaMilliseconds: step.deltaMilliseconds), at: step.at)
            }
        }
    }

    private func drawCrashes() {
        let expected = configuration.crashes.crashesPerDeviceHour * configuration.hours
        for device in devices.indices {
            var count = Int(expected)
            if random.chance(expected - Double(count)) { count += 1 }
            for _ in 0..<count {
                let at = start + 30_000 + random.integer(in: 0...configuration.workloadMilliseconds.minus(30_000))
                queue.schedule(.crash(device: device, kind: random.pick(CrashKind.allCases)), at: at)
            }
        }
    }

    /// The first connections, folder syncs, checkpoints and the heal.
    private func scheduleRoutines() {
        for device in devices {
            for peer in device.dials {
                queue.schedule(.dial(from: device.index, to: peer), at: start + 5_000 + UInt64(random.integer(in: 0...5_000)))
            }
        }
        let folderInterval = configuration.folder.syncIntervalSeconds * 1_000
        for device in devices where device.usesFolder {
            queue.schedule(.folderSync(device: device.index), at: start + 5_000 + UInt64(random.integer(in: 0...folderInterval)))
        }
        if hostile != nil, folder != nil {
            for _ in 0..<random.integer(in: 2...5) {
                queue.schedule(.hostileFiles, at: start + 60_000 + random.integer(in: 0...(healAt - start).minus(120_000)))
            }
        }
        var checkpoint = start + Self.checkpointInterval
        while checkpoint < healAt {
            queue.schedule(.checkpoint, at: checkpoint)
            checkpoint += Self.checkpointInterval
        }
        queue.schedule(.heal, at: healAt)
    }

    static let checkpointInterval: UInt64 = 30 * 60_000
    /// How far the year-ahead phone's clock jumps.
    static let yearMilliseconds: UInt64 = 365 * 24 * 3_600_000

    /// The coverage case a clock step counts as: a year ahead, hours behind, or an ordinary step.
    static func coverageCase(ofStep delta: Int64) -> Coverage.Case {
        if delta >= Int64(yearMilliseconds) { return .yearAheadClocks }
        if delta <= -3_600_000 { return .hoursBehindClocks }
        return delta < 0 ? .backwardClockSteps : .forwardClockSteps
    }

    /// Records the ops `device` created since the last capture; a lost or rewritten
    /// acknowledged op is a safety failure.
    @discardableResult
    func capture(_ device: SimulatedDevice) throws -> [OpRegistry.Entry] {
        do {
            return try registry.capture(device.running, device: device.index)
        } catch let problem as RegistryProblem {
            throw fail(.safety, "acknowledged op lost: \(problem)")
        }
    }

    /// Where the stores go: memory-backed `/dev/shm` when there is one, the temporary folder otherwise.
    static func temporaryRoot() -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: "/dev/shm")
        {
            return URL(fileURLWithPath: "/dev/shm")
        }
        return FileManager.default.temporaryDirectory
    }

    private static let runCounter = RunCounter()

    static func nextRunNumber() -> Int { runCounter.next() }
}

/// Numbers the runs of one process, so two runs of one seed never share a directory.
final class RunCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

extension UInt64 {
    /// `self - other`, or 0 when `other` is larger.
    func minus(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
