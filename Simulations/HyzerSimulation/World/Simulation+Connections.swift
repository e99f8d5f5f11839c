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
            let retry = 1_000 + nextDialDelay(key)
            record("dial \(devices[from].name)->\(devices[to].name) failed: \(reason); again in \(retry)ms")
            scheduleIn(retry, .dial(from: from, to: to))
            return
        }
        let dialEpoch = links.redialers[key]?.dialEpoch
        let connection = SimulatedConnection(
            id: links.nextID(),
            dialer: .init(device: from, driver: try driver(for: from, role: .dialer, dialEpoch: dialEpoch)),
            listener: .init(device: to, driver: try driver(for: to, role: .listener)))
        for end in 0..<2 {
            connection.ends[end].driver?.observer = SimulatedEndObserver(simulation: self, connection: connection, end: end)
        }
        if removal?.isRemoved ?? false {
            connection.epochsDiffered = try devices[from].running.group()?.epoch != devices[to].running.group()?.epoch
        }
        links.open[connection.id] = connection
        record("connect #\(connection.id) \(devices[from].name)->\(devices[to].name)" + (dialEpoch.map { " on epoch \($0)" } ?? ""))
        try drive(connection, 0) { driver, now in try driver.start(now: now) }
    }

    /// The driver a device runs for one connection: the shipped `ConnectionDriver`, live, with a
    /// handshake key drawn from the seed.
    private func driver(for index: Int, role: Handshake.Role, dialEpoch: UInt32? = nil) throws -> ConnectionDriver {
        let device = devices[index]
        let replica = device.running
        // After a removal each device runs under the group it holds (the removed one on the old key).
        // The vector first: reading it releases held ops, which may bring the rekey.
        _ = try vector(of: index)
        let held: GroupMembership = removal?.isRemoved ?? false ? try replica.group() ?? group : group
        return ConnectionDriver(
            replica: replica, group: held, role: role, mode: .live, ephemeral: KeyExchange(seed: random.bytes(KeyExchange.seedBytes)),
            budget: device.bundleBudget, acknowledgement: policies.acknowledgement, dialEpoch: dialEpoch, now: world.now)
    }

    /// The pause before a dialer's next attempt on `key`, by the shipped `Redialer` with the
    /// network's seeded jitter.
    func nextDialDelay(_ key: DialKey) -> UInt64 {
        var redialer = links.redialers[key] ?? newRedialer()
        defer { links.redialers[key] = redialer }
        return redialer.nextDelay { network.draw(in: $0) }
    }

    func newRedialer() -> Redialer {
        Redialer(backoffMaxMilliseconds: UInt64(max(1, configuration.network.reconnectMaxSeconds)) * 1_000)
    }

    func connectionBetween(_ a: Int, _ b: Int) -> SimulatedConnection? {
        links.open.values.first { $0.isOpen && Set([$0.dialer, $0.listener]) == Set([a, b]) }
    }

    // MARK: Frames

    /// Puts a frame on the stream toward `end`: it crosses after the network's delay, never
    /// before the frame ahead of it.
    private func transmit(_ bytes: [UInt8], _ connection: SimulatedConnection, toward end: Int) throws {
        outcome.bytesSent += bytes.count + 4
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
        guard let connection = links.open[id], connection.isOpen else { return }
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
        try drive(connection, end) { driver, now in try driver.receive(frame: frame.bytes, now: now) }
        try checkPeerReport(connection, end)
        scheduleDelivery(connection, end)
    }

    /// What a peer says it holds (its hello, its `have`s) its store holds: the other side stops
    /// sending what it believes the peer has (docs/sync-protocol.md).
    private func checkPeerReport(_ connection: SimulatedConnection, _ end: Int) throws {
        guard connection.isOpen else { return }
        let reported = connection.ends[end].engine?.peerReported ?? VersionVector()
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
        guard let connection = links.open[id], connection.isOpen else { return }
        if connection.tickAt == world.now { connection.tickAt = nil }
        for end in 0..<2 where connection.isOpen {
            try drive(connection, end) { driver, now in try driver.tick(now: now) }
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

    // MARK: Driving

    /// Feeds one end's `ConnectionDriver` (the shipped one, which carries out every engine
    /// action as `serve` does, store work on the device's replica at once) and puts what it
    /// returns on the stream. The simulator's books are kept by the end's `SimulatedEndObserver`.
    ///
    /// Deltas answering a store change (`announceChanges`) are shared among the device's
    /// connections whose peers hold the same thing, as `serve` shares them, through the same
    /// seam (`DeltaSharing`).
    private func drive(
        _ connection: SimulatedConnection, _ end: Int, sharing: DeltaSharing? = nil,
        _ step: (inout ConnectionDriver, UInt64) throws -> [ConnectionDriver.Output]
    ) throws {
        guard connection.isOpen, var driver = connection.ends[end].driver else { return }
        // Out of the connection while it runs: the observer's hooks read the connection.
        connection.ends[end].driver = nil
        driver.sharing = sharing
        let outputs: [ConnectionDriver.Output]
        do {
            outputs = try step(&driver, world.now)
        } catch {
            connection.ends[end].driver = driver
            throw error
        }
        driver.sharing = nil
        connection.ends[end].driver = driver
        let index = connection.ends[end].device
        for output in outputs {
            guard connection.isOpen else { break }
            switch output {
            case .write(let bytes): try transmit(bytes, connection, toward: 1 - end)
            case .close(let failure): try closed(connection, by: index, failure)
            case .finish: try close(connection, "finished")
            }
        }
        if connection.isOpen, !connection.established, connection.ends[0].engine?.isOpen == true {
            connection.established = true
            if links.redialers[DialKey(from: connection.dialer, to: connection.listener)]?.dialEpoch != nil {
                coverage.count(.olderEpochDials)
            }
            coverage.count(.connectionsOpened)
            record("open #\(connection.id) \(devices[connection.dialer].name)->\(devices[connection.listener].name)")
        }
        scheduleTick(connection)
        try announceChanges()
    }

    /// The books of an ingest the driver made (its sender is the peer the handshake proved):
    /// all of the bundle, or only its first segments when a crash cuts the ingest short.
    func ingested(
        _ segments: [AuthorSegment], of bundle: HyzerSync.Bundle, from sender: Int, into index: Int, report: IngestReport,
        vector local: VersionVector
    ) throws {
        let device = devices[index]
        noteVector(local, of: index)
        record(
            "recv \(devices[sender].name)->\(device.name) segments=\(segments.count) applied=\(report.opsApplied) held=\(report.opsAlreadyHeld) pending=\(report.segmentsPending)"
        )
        // The removed phone's ops after the removal, passed on by a member that held them first:
        // kept, reported, counted nowhere (docs/security.md, "Removing a member").
        let removedAuthor = removal.flatMap { $0.isRemoved ? devices[$0.device].author : nil }
        let fromRemoved = report.rejected.filter { if case .removedMember(removedAuthor, _) = $0 { true } else { false } }
        coverage.count(.removedMemberRefused, fromRemoved.count)
        // A restored or copied store's author forked: the segment that shows it is its proof.
        let forks = report.rejected.filter { if case .fork(let author, _) = $0 { registry.disturbed.contains(author) } else { false } }
        // A planted identity's ops, passed on by anyone: kept, reported, counted nowhere (docs/security.md, "Membership").
        let planted = report.rejected.filter {
            if case .notAMember(let author) = $0 { hostile?.plantedAuthors.contains(author) ?? false } else { false }
        }
        coverage.count(.plantedIdentitiesRefused, planted.count)
        if report.rejected.count > fromRemoved.count + forks.count + planted.count {
            guard sender == hostile?.device else {
                throw fail(.safety, "\(device.name) refused ops from \(devices[sender].name): \(report.rejected.map(\.description))")
            }
            coverage.count(.junkRefused)
        }
        if sender == hostile?.device {
            if report.segmentsPending + report.segmentsHeld > 0, segments.contains(where: { !isDeviceAuthor($0.author) }) {
                coverage.count(.junkPending)
            }
            try checkJunkBounded(index)
        }
        if report.segmentsPending > 0 { coverage.count(.gapsKeptPending) }
        if report.segmentsHeld > 0 { coverage.count(.segmentsHeld) }
        // Connections are live: the driver signed this device's receipts of the rounds whose
        // finish arrived, ops of its own the registry records as it does a command's
        // (docs/domain.md, "Round receipts").
        if report.finishesApplied > 0, !(try capture(device)).isEmpty { coverage.count(.receiptsAfterLiveFinish) }
        try checkNothingDropped(device, segments, vector: local)
        if report.opsApplied > 0 { links.changed.insert(index) }
    }

    /// A crash cut the ingest on `index` short.
    func crashMidIngest(_ index: Int, after kept: Int, of segments: Int) throws {
        record("\(devices[index].name) killed mid-ingest after \(kept) of \(segments) segments")
        try crashNow(index, kind: .midIngest)
    }

    /// A driver read `vector` from the device's store: a vector that moved since the last
    /// announcement (held ops applied) marks the device, as `serve`'s change monitor would.
    func noteVector(_ vector: VersionVector, of index: Int) {
        if vector != devices[index].announcedVector { links.changed.insert(index) }
    }

    /// The device's version vector. Reading it applies held ops whose time has come (docs/store.md,
    /// "Held ops"), so a read that finds the store changed marks the device, as `serve`'s change
    /// monitor would notice the commit.
    func vector(of index: Int) throws -> VersionVector {
        let vector = try devices[index].running.versionVector()
        if vector != devices[index].announcedVector { links.changed.insert(index) }
        return vector
    }

    /// Tells every open connection of the devices whose stores changed (a command, an ingest, a
    /// folder sync, held ops applied): live engines send their peers what they lack. This is how
    /// ops are relayed.
    func announceChanges() throws {
        while let index = links.changed.min() {
            links.changed.remove(index)
            guard devices[index].isRunning else { continue }
            let local = try devices[index].running.versionVector()
            if local != devices[index].announcedVector { devices[index].vectorChangedAt = world.now }
            devices[index].announcedVector = local
            let sharing = ChangeSharing(vector: local)
            for connection in links.inOrder where connection.isOpen {
                guard let end = connection.end(of: index) else { continue }
                // As the NIO shell does: a delta another connection read is taken with no store work.
                try drive(connection, end, sharing: sharing) { driver, now in
                    try driver.storeChangedFromSharing(now: now) ?? driver.storeChanged(now: now)
                }
            }
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
            try close(connection, "\(devices[index].name): \(failure)", failure: failure)
        case .notAGroupMember where connection.epochsDiffered, .closedDuringHandshake where connection.epochsDiffered:
            // One of them has not received the rekey: the dialer's `Redialer` tries its older epoch next.
            try close(connection, "\(devices[index].name): the other holds another newest epoch: \(failure)", failure: failure)
        case .peerRemoved where removal.map { connection.end(of: $0.device) != nil } ?? false:
            coverage.count(.removedWhileConnected)
            try close(connection, "\(devices[index].name): the removed phone is sent nothing more", failure: failure)
        case _ where removal.map { $0.isRemoved && connection.end(of: $0.device) != nil } ?? false:
            coverage.count(.removedMemberRefused)
            try close(connection, "\(devices[index].name): the removed phone: \(failure)", failure: failure)
        case .storeFailed(let error):
            throw fail(.unexpected, "connection #\(connection.id): \(devices[index].name)'s store failed: \(error)")
        case _ where hostile.map { $0.device != index && connection.end(of: $0.device) != nil && connection.hostileBundleSent } ?? false:
            coverage.count(.junkRefused)
            try close(connection, "\(devices[index].name) refused the hostile member: \(failure)", failure: failure)
        default:
            throw fail(.safety, "connection #\(connection.id): \(devices[index].name) refused an honest peer: \(failure)")
        }
    }

    /// Ends a connection at both ends; the dialer dials again when its `Redialer` says, on the
    /// epoch it says.
    func close(_ connection: SimulatedConnection, _ reason: String, failure: SyncFailure? = nil) throws {
        guard connection.isOpen else { return }
        connection.isOpen = false
        links.open[connection.id] = nil
        record("close #\(connection.id) \(devices[connection.dialer].name)->\(devices[connection.listener].name): \(reason)")
        guard devices[connection.dialer].isRunning else { return }
        let key = DialKey(from: connection.dialer, to: connection.listener)
        // The group the dialer dialed with: its older epochs are what it tries next.
        let held: GroupMembership = connection.ends[0].driver?.group ?? group
        var redialer = links.redialers[key] ?? newRedialer()
        redialer.connectionEnded(authenticated: connection.established, failure: failure, group: held)
        links.redialers[key] = redialer
        scheduleIn(nextDialDelay(key), .dial(from: connection.dialer, to: connection.listener))
    }

    /// A device's process died: its connections are gone (the kernel closes its sockets).
    func closeConnections(of index: Int) throws {
        for connection in links.inOrder where connection.end(of: index) != nil {
            try close(connection, "\(devices[index].name) died")
        }
    }

    /// A restarted device dials its peers again.
    func dialPeers(of index: Int) {
        for peer in devices[index].dials {
            let key = DialKey(from: index, to: peer)
            links.redialers[key] = newRedialer()
            scheduleIn(nextDialDelay(key), .dial(from: index, to: peer))
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
    /// (docs/replication.md, "Version vectors and deltas"), unless a junk cap evicted it, and
    /// then the store has no room aside left (`Replica.holdings`, docs/store.md, "Junk caps").
    /// Checked at every ingest, per author, so that other authors' waiting ops cannot hide a
    /// drop. What a cap evicted must still reach every member: the convergence check after the
    /// heal asks every member for every op any member holds, evictions or not, and a live
    /// connection heals it (docs/sync-protocol.md, "Live connections heal").
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
        guard !given.isEmpty else { return }
        var room: Bool?
        for (author, last) in given.sorted(by: { $0.key < $1.key }) {
            let kept = try readReplica(device.index, { try $0.highestSequenceAside(of: author) }) ?? last
            guard kept < last else { continue }
            if room == nil { room = try readReplica(device.index, { try $0.holdings().hasRoomAside }) ?? false }
            if room == true {
                throw fail(
                    .safety,
                    "\(device.name) was given ops of \(author.short) up to \(last) above what it holds, but keeps them only up to \(kept), with room aside: ingest dropped ops"
                )
            }
            record("\(device.name): a junk cap evicted ops of \(author.short) above \(kept)")
        }
    }
}

/// A dialer and the peer it dials, as a dictionary key (only ever looked up, never iterated).
struct DialKey: Hashable {
    let from: Int
    let to: Int
}
