import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

extension Simulation {
    // MARK: Dialing

    /// A device tries to connect to a peer it dials (each phone dials the phones after it; the
    /// watch dials its phone). An unreachable peer costs a timed-out attempt and a backoff, as
    /// a real `serve --peer` does.
    func dial(_ from: Int, _ to: Int) throws {
        let key = DialKey(from: from, to: to)
        guard devices[from].isRunning, connectionBetween(from, to) == nil else { return }
        if let reason = unreachable(from: from, to: to) ?? (devices[to].isRunning ? nil : "\(devices[to].name) down") {
            coverage.count(.dialsFailed)
            let attempt = dialAttempts[key, default: 0]
            dialAttempts[key] = attempt + 1
            let retry = 1_000 + network.backoff(attempt: attempt)
            record("dial \(devices[from].name)->\(devices[to].name) failed: \(reason); again in \(retry)ms")
            scheduleIn(retry, .dial(from: from, to: to))
            return
        }
        nextConnectionID += 1
        let connection = SimulatedConnection(
            id: nextConnectionID,
            dialer: .init(device: from, engine: try engine(for: from, role: .dialer, dialEpoch: dialEpochs[key])),
            listener: .init(device: to, engine: try engine(for: to, role: .listener)))
        if removedThrough != nil {
            connection.epochsDiffered = try devices[from].running.group()?.epoch != devices[to].running.group()?.epoch
        }
        connections[connection.id] = connection
        record("connect #\(connection.id) \(devices[from].name)->\(devices[to].name)" + (dialEpochs[key].map { " on epoch \($0)" } ?? ""))
        try drive(connection, 0) { engine, now in engine.start(now: now) }
    }

    /// The engine a device runs for one connection: the shipped `SyncEngine`, live, with a
    /// handshake key drawn from the seed.
    private func engine(for index: Int, role: Handshake.Role, dialEpoch: UInt32? = nil) throws -> SyncEngine {
        let device = devices[index]
        let replica = device.running
        // After a removal each device runs under the group it holds (the removed one on the old key).
        // The vector first: reading it releases held ops, which may bring the rekey.
        let localVector = try vector(of: index)
        let held: GroupMembership = removedThrough == nil ? group : try replica.group() ?? group
        return SyncEngine(
            role: role, mode: .live, author: device.author, sign: { replica.signature(of: $0) }, group: held,
            ephemeral: KeyExchange(seed: random.bytes(KeyExchange.seedBytes)), localVector: localVector,
            budget: device.bundleBudget, acknowledgement: policies.acknowledgement, dialEpoch: dialEpoch, now: world.now)
    }

    func connectionBetween(_ a: Int, _ b: Int) -> SimulatedConnection? {
        connections.values.first { $0.isOpen && Set([$0.dialer, $0.listener]) == Set([a, b]) }
    }

    // MARK: Frames

    /// Puts a frame on the stream toward `end`: it crosses after the network's delay, never
    /// before the frame ahead of it.
    private func transmit(_ bytes: [UInt8], _ connection: SimulatedConnection, toward end: Int) throws {
        bytesSent += bytes.count + 4
        coverage.count(.framesSent)
        let fate = network.fate(bytes: bytes.count + 4)
        if fate.reset {
            coverage.count(.connectionsReset)
            try close(connection, "reset by the network")
            return
        }
        if fate.retransmitted { coverage.count(.framesRetransmitted) }
        if fate.stalled {
            coverage.count(.streamStalls)
            record("stream #\(connection.id) toward \(devices[connection.ends[end].device].name) stalls \(fate.delay)ms")
        }
        let due = max(connection.ends[end].lastDue, world.now + fate.delay)
        connection.ends[end].lastDue = due
        connection.ends[end].inbound.append((bytes, due))
        scheduleDelivery(connection, end)
    }

    private func scheduleDelivery(_ connection: SimulatedConnection, _ end: Int) {
        guard connection.isOpen, !connection.ends[end].deliveryScheduled, let head = connection.ends[end].inbound.first else { return }
        connection.ends[end].deliveryScheduled = true
        queue.schedule(.arrive(connection: connection.id, end: end), at: max(world.now, head.due))
    }

    /// The head frame toward `end` has crossed. While a partition, an offline period or the
    /// watch's range cuts the path, TCP keeps retransmitting: the frame waits.
    func arrive(_ id: Int, _ end: Int) throws {
        guard let connection = connections[id], connection.isOpen else { return }
        connection.ends[end].deliveryScheduled = false
        guard !connection.ends[end].inbound.isEmpty else { return }
        if let reason = unreachable(from: connection.ends[1 - end].device, to: connection.ends[end].device) {
            coverage.count(.framesHeld)
            if !connection.ends[end].held {
                connection.ends[end].held = true
                record("stream #\(id) toward \(devices[connection.ends[end].device].name) held: \(reason)")
            }
            connection.ends[end].inbound[0].due = world.now + 1_000
            connection.ends[end].lastDue = max(connection.ends[end].lastDue, world.now + 1_000)
            scheduleDelivery(connection, end)
            return
        }
        connection.ends[end].held = false
        let frame = connection.ends[end].inbound.removeFirst()
        try drive(connection, end) { engine, now in engine.receive(frame: frame.bytes, now: now) }
        try checkPeerReport(connection, end)
        scheduleDelivery(connection, end)
    }

    /// What a peer says it holds (its hello, its `have`s) its store holds: the other side stops
    /// sending what it believes the peer has (docs/sync-protocol.md).
    private func checkPeerReport(_ connection: SimulatedConnection, _ end: Int) throws {
        guard connection.isOpen else { return }
        let reported = connection.ends[end].engine.peerReported
        guard reported != connection.ends[end].checkedReport else { return }
        connection.ends[end].checkedReport = reported
        let peer = connection.ends[1 - end].device
        guard devices[peer].isRunning else { return }
        func lacking(_ held: VersionVector) -> [(author: AuthorID, entry: VersionVector.Entry)] {
            reported.sortedFullEntries.filter { !(held.entry($0.author)?.covers($0.entry) ?? false) }
        }
        // A store's vector only grows (a restored backup resets what was announced): what the
        // last announcement covers, the store still holds.
        if let announced = devices[peer].announcedVector, lacking(announced).isEmpty { return }
        let lacking = lacking(try vector(of: peer))
        guard !lacking.isEmpty else { return }
        let authors = lacking.map { entry in devices.first { $0.author == entry.author }?.name ?? entry.author.short }
        throw fail(
            .safety,
            "\(devices[peer].name) told \(devices[connection.ends[end].device].name) it holds ops of \(authors) its store does not hold")
    }

    /// Time passes for both engines of a connection: heartbeats, the dead-peer bound, the
    /// handshake timeout. The engines are told the time at their next deadline, not every
    /// simulated second: a connection with nothing due costs no event.
    func engineTick(_ id: Int) throws {
        guard let connection = connections[id], connection.isOpen else { return }
        if connection.tickAt == world.now { connection.tickAt = nil }
        for end in 0..<2 where connection.isOpen {
            try drive(connection, end) { engine, now in engine.tick(now: now) }
        }
    }

    /// Schedules the connection's next tick at the earlier of its engines' deadlines, unless one
    /// is due no later.
    private func scheduleTick(_ connection: SimulatedConnection) {
        guard connection.isOpen, let due = connection.nextDeadline else { return }
        let at = max(due, world.now)
        if let pending = connection.tickAt, pending >= world.now, pending <= at { return }
        connection.tickAt = at
        queue.schedule(.engineTick(connection: connection.id), at: at)
    }

    // MARK: Actions

    /// Feeds one end's engine and performs what it asks, as the network shell does: frames go on
    /// the stream, store work runs on the device's replica at once.
    ///
    /// Deltas answering a store change (`announceChanges`) are shared among the device's
    /// connections whose peers hold the same thing, as `serve` shares them
    /// (`ConnectionSignals.deltaAfterLatestChange`).
    private func drive(
        _ connection: SimulatedConnection, _ end: Int, answeringChange: Bool = false,
        _ step: (inout SyncEngine, UInt64) -> [SyncEngine.Action]
    ) throws {
        guard connection.isOpen else { return }
        var actions = step(&connection.ends[end].engine, world.now)
        let index = connection.ends[end].device
        while connection.isOpen, !actions.isEmpty {
            switch actions.removeFirst() {
            case .write(let bytes):
                try transmit(bytes, connection, toward: 1 - end)
            case .prepareDelta(let above):
                let bytesMax = connection.ends[end].engine.configuration.bundleBytesMax
                let delta =
                    try (answeringChange ? sharedDeltas[index]?[above] : nil)
                    ?? devices[index].running.deltaBundles(above: above, group: group, bytesMax: bytesMax)
                if answeringChange { sharedDeltas[index]?[above] = delta }
                if delta.vector != devices[index].announcedVector { changedDevices.insert(index) }  // held ops applied
                if !delta.bundles.isEmpty { coverage.count(.deltasSent) }
                let hostile = hostileBundle(connection, end, vector: delta.vector).map { [$0] } ?? []
                actions += connection.ends[end].engine.deltaPrepared(delta.bundles + hostile, upTo: delta.vector, now: world.now)
            case .ingest(let bundle):
                guard let local = try ingest(bundle, from: connection.ends[1 - end].device, into: index) else { return }
                actions += connection.ends[end].engine.ingested(senderVector: bundle.senderVector, localVector: local, now: world.now)
            case .admit(let request):
                actions += connection.ends[end].engine.admitted(try devices[index].running.admit(request), now: world.now)
            case .close(let failure):
                try closed(connection, by: index, failure)
            case .finish:
                try close(connection, "finished")
            }
        }
        if connection.isOpen, !connection.established, connection.ends[0].engine.isOpen {
            connection.established = true
            dialAttempts[DialKey(from: connection.dialer, to: connection.listener)] = 0
            if dialEpochs.removeValue(forKey: DialKey(from: connection.dialer, to: connection.listener)) != nil {
                coverage.count(.olderEpochDials)
            }
            coverage.count(.connectionsOpened)
            record("open #\(connection.id) \(devices[connection.dialer].name)->\(devices[connection.listener].name)")
        }
        scheduleTick(connection)
        try announceChanges()
    }

    /// Ingests a bundle the engine checked (its sender is the peer the handshake proved): all of
    /// it, or only its first segments when a crash cuts the ingest short. Returns the local
    /// vector after it, or nil when the device died.
    private func ingest(_ bundle: HyzerSync.Bundle, from sender: Int, into index: Int) throws -> VersionVector? {
        let device = devices[index]
        let label = "recv \(devices[sender].name)->\(device.name)"
        var segments = bundle.segments
        let dies = device.pendingCrash == .midIngest
        if dies { segments = Array(segments.prefix(segments.isEmpty ? 0 : random.below(segments.count))) }
        let report: IngestReport
        let local: VersionVector
        do {
            report = try device.running.ingest(segments)
            local = try vector(of: index)
        } catch {
            throw fail(.unexpected, "\(label): \(error)")
        }
        record(
            "\(label) segments=\(segments.count) applied=\(report.opsApplied) held=\(report.opsAlreadyHeld) pending=\(report.segmentsPending)"
        )
        // The removed phone's ops after the removal, passed on by a member that held them first:
        // kept, reported, counted nowhere (docs/security.md, "Removing a member").
        let removedAuthor = removedThrough == nil ? nil : removedPhone.map { devices[$0].author }
        let fromRemoved = report.rejected.filter { if case .removedMember(removedAuthor, _) = $0 { true } else { false } }
        coverage.count(.removedMemberRefused, fromRemoved.count)
        // A restored or copied store's author forked: the segment that shows it is its proof.
        let forks = report.rejected.filter { if case .fork(let author, _) = $0 { registry.disturbed.contains(author) } else { false } }
        // A planted identity's ops, passed on by anyone: kept, reported, counted nowhere (docs/security.md, "Membership").
        let planted = report.rejected.filter { if case .notAMember(let author) = $0 { plantedAuthors.contains(author) } else { false } }
        coverage.count(.plantedIdentitiesRefused, planted.count)
        if report.rejected.count > fromRemoved.count + forks.count + planted.count {
            guard sender == hostilePhone else {
                throw fail(.safety, "\(device.name) refused ops from \(devices[sender].name): \(report.rejected.map(\.description))")
            }
            coverage.count(.junkRefused)
        }
        if sender == hostilePhone {
            if report.segmentsPending + report.segmentsHeld > 0, segments.contains(where: { !isDeviceAuthor($0.author) }) {
                coverage.count(.junkPending)
            }
            try checkJunkBounded(index)
        }
        if report.segmentsPending > 0 { coverage.count(.gapsKeptPending) }
        if report.segmentsHeld > 0 { coverage.count(.segmentsHeld) }
        try checkNothingDropped(device, segments, vector: local)
        if dies {
            record("\(device.name) killed mid-ingest after \(segments.count) of \(bundle.segments.count) segments")
            try crashNow(index, kind: .midIngest)
            return nil
        }
        if report.opsApplied > 0 { changedDevices.insert(index) }
        return local
    }

    /// The device's version vector. Reading it applies held ops whose time has come (docs/store.md,
    /// "Held ops"), so a read that finds the store changed marks the device, as `serve`'s change
    /// monitor would notice the commit.
    func vector(of index: Int) throws -> VersionVector {
        let vector = try devices[index].running.versionVector()
        if vector != devices[index].announcedVector { changedDevices.insert(index) }
        return vector
    }

    /// Tells every open connection of the devices whose stores changed (a command, an ingest, a
    /// folder sync, held ops applied): live engines send their peers what they lack. This is how
    /// ops are relayed.
    func announceChanges() throws {
        while let index = changedDevices.min() {
            changedDevices.remove(index)
            guard devices[index].isRunning else { continue }
            let local = try devices[index].running.versionVector()
            if local != devices[index].announcedVector { devices[index].vectorChangedAt = world.now }
            devices[index].announcedVector = local
            sharedDeltas[index] = [:]
            for connection in connections.values.sorted(by: { $0.id < $1.id }) where connection.isOpen {
                guard let end = connection.end(of: index) else { continue }
                try drive(connection, end, answeringChange: true) { engine, now in engine.localChanged(localVector: local, now: now) }
            }
            sharedDeltas[index] = nil
        }
    }

    // MARK: Closing

    /// An engine closed its connection: a failure among honest devices must be one the network
    /// explains (a dead peer, a timeout), never a refusal of what an honest peer sent. A hostile
    /// member's crafted bundles may be refused.
    private func closed(_ connection: SimulatedConnection, by index: Int, _ failure: SyncFailure) throws {
        switch failure {
        case .peerDead, .handshakeTimeout, .idleTimeout, .connectionLost, .peerClosed:
            if failure == .peerDead { coverage.count(.peersDeclaredDead) }
            try close(connection, "\(devices[index].name): \(failure)")
        case .notAGroupMember where connection.epochsDiffered, .closedDuringHandshake where connection.epochsDiffered:
            // One of them has not received the rekey: the dialer tries its older epoch next.
            let key = DialKey(from: connection.dialer, to: connection.listener)
            let held: GroupMembership = try devices[connection.dialer].running.group() ?? group
            dialEpochs[key] = held.epochBefore(dialEpochs[key] ?? held.epoch)
            try close(connection, "\(devices[index].name): the other holds another newest epoch: \(failure)")
        case _ where removedThrough != nil && removedPhone.map { connection.end(of: $0) != nil } ?? false:
            coverage.count(.removedMemberRefused)
            try close(connection, "\(devices[index].name): the removed phone: \(failure)")
        case _ where hostilePhone.map { $0 != index && connection.end(of: $0) != nil && connection.hostileBundleSent } ?? false:
            coverage.count(.junkRefused)
            try close(connection, "\(devices[index].name) refused the hostile member: \(failure)")
        default:
            throw fail(.safety, "connection #\(connection.id): \(devices[index].name) refused an honest peer: \(failure)")
        }
    }

    /// Ends a connection at both ends; the dialer dials again after a backoff.
    func close(_ connection: SimulatedConnection, _ reason: String) throws {
        guard connection.isOpen else { return }
        connection.isOpen = false
        connections[connection.id] = nil
        record("close #\(connection.id) \(devices[connection.dialer].name)->\(devices[connection.listener].name): \(reason)")
        let key = DialKey(from: connection.dialer, to: connection.listener)
        let attempt = dialAttempts[key, default: 0]
        dialAttempts[key] = attempt + 1
        if devices[connection.dialer].isRunning {
            scheduleIn(network.backoff(attempt: attempt), .dial(from: connection.dialer, to: connection.listener))
        }
    }

    /// A device's process died: its connections are gone (the kernel closes its sockets).
    func closeConnections(of index: Int) throws {
        for connection in connections.values.sorted(by: { $0.id < $1.id }) where connection.end(of: index) != nil {
            try close(connection, "\(devices[index].name) died")
        }
    }

    /// A restarted device dials its peers again.
    func dialPeers(of index: Int) {
        for peer in devices[index].dials {
            dialAttempts[DialKey(from: index, to: peer)] = 0
            scheduleIn(network.backoff(attempt: 0), .dial(from: index, to: peer))
        }
    }

    /// Why `from` cannot reach `to` now, or nil.
    func unreachable(from: Int, to: Int) -> String? {
        let now = world.now
        if schedule.isOffline(from, at: now) { return "\(devices[from].name) offline" }
        if schedule.isOffline(to, at: now) { return "\(devices[to].name) offline" }
        if schedule.blocks(from: from, to: to, at: now) { return "partition" }
        let watch = devices[from].kind == .watch ? from : devices[to].kind == .watch ? to : nil
        if let watch, !schedule.watchInRange(watch, at: now) { return "\(devices[watch].name) out of range" }
        if watch == nil, schedule.wifiDown(at: now) { return "Wi-Fi down" }
        return nil
    }

    /// Every op handed to ingest is now applied, or kept aside (above a gap, or held for the
    /// clock) in a segment that reaches it: ingest never drops an op it was given
    /// (docs/replication.md, "Version vectors and deltas"). Checked per author, so that other
    /// authors' waiting ops cannot hide a drop. Not while a table of segments set aside is full:
    /// the junk caps then evict, honest segments of authors the replica holds nothing of first
    /// (docs/store.md, "Junk caps"; a hostile member's flood beside a clock hours behind does it).
    func checkNothingDropped(_ device: SimulatedDevice, _ segments: [AuthorSegment], vector: VersionVector) throws {
        var given: [AuthorID: UInt64] = [:]
        // Made-up identities (a hostile member's) are junk the caps may evict.
        // A frozen author's other branch is kept as the fork's proof, not as ops.
        for segment in segments
        where segment.lastSequence > vector[segment.author] && isDeviceAuthor(segment.author)
            && vector.entry(segment.author)?.frozenAt == nil
        {
            given[segment.author] = max(given[segment.author] ?? 0, segment.lastSequence)
        }
        guard !given.isEmpty, let aside = try readReplica(device.index, { try $0.segmentsAside() }),
            max(aside.pending, aside.held) < Self.junkSegmentsMax
        else { return }
        for (author, last) in given.sorted(by: { $0.key < $1.key }) {
            let kept = try readReplica(device.index, { try $0.highestSequenceAside(of: author) }) ?? last
            if kept < last {
                throw fail(
                    .safety,
                    "\(device.name) was given ops of \(author.short) up to \(last) above what it holds, but keeps them only up to \(kept): ingest dropped ops"
                )
            }
        }
    }
}

/// A dialer and the peer it dials, as a dictionary key (only ever looked up, never iterated).
struct DialKey: Hashable {
    let from: Int
    let to: Int
}
