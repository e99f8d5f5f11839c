import Foundation
import HyzerKit
import HyzerSync

extension Simulation {
    /// A device syncs with each peer it can reach: the link protocol decides what to send.
    func syncTick(_ index: Int) throws {
        let device = devices[index]
        let interval = UInt64(configuration.network.syncIntervalSeconds * 1_000)
        let next = schedule.healed ? min(interval, 20_000) : interval
        scheduleIn(UInt64(random.integer(in: Int(next / 2)...Int(next * 3 / 2))), .syncTick(device: index))
        guard device.isRunning, !schedule.isOffline(index, at: world.now),
            let local = try readReplica(index, { try $0.versionVector() })
        else { return }
        for peer in device.peers {
            guard var link = device.links[peer] else { continue }
            let bytes: [UInt8]?
            do {
                bytes = try link.outgoing(device.running, group: group, local: local)
            } catch {
                throw fail(.unexpected, "\(device.name) could not prepare a message for \(devices[peer].name): \(error)")
            }
            device.links[peer] = link
            if let bytes { send(bytes, from: index, to: peer) }
        }
    }

    /// Puts a message on the network: blocked, lost, delayed, duplicated or overtaken.
    func send(_ bytes: [UInt8], from: Int, to: Int) {
        let key = LinkKey(from: from, to: to)
        let index = (sentOnLink[key] ?? 0) + 1
        sentOnLink[key] = index
        coverage.count(.messagesSent)
        bytesSent += bytes.count
        let label = "msg \(devices[from].name)->\(devices[to].name) #\(index) \(bytes.count)B"
        if let reason = unreachable(from: from, to: to) {
            coverage.count(.messagesBlocked)
            record("\(label) blocked: \(reason)")
            return
        }
        let fate = network.fate()
        if fate.lost {
            coverage.count(.messagesLost)
            record("\(label) lost")
            return
        }
        if fate.duplicated { coverage.count(.messagesDuplicated) }
        for (copy, delay) in fate.delays.enumerated() {
            scheduleIn(delay, .deliver(LinkMessage(from: from, to: to, index: index, bytes: bytes, isDuplicate: copy > 0)))
        }
        record("\(label) in \(fate.delays.map { "\($0)ms" }.joined(separator: "+"))\(fate.straggled ? " (straggler)" : "")")
    }

    /// Why a message from `from` cannot reach `to` now, or nil.
    private func unreachable(from: Int, to: Int) -> String? {
        let now = world.now
        if schedule.isOffline(from, at: now) { return "\(devices[from].name) offline" }
        if schedule.isOffline(to, at: now) { return "\(devices[to].name) offline" }
        if schedule.blocks(from: from, to: to, at: now) { return "partition" }
        if devices[from].kind == .watch || devices[to].kind == .watch, !schedule.watchInRange(at: now) { return "watch out of range" }
        return nil
    }

    /// A message arrives: the receiver ingests it (all of it, or only its first segments when
    /// a crash cuts the ingest short), then answers with what the sender lacks.
    func deliver(_ message: LinkMessage) throws {
        let receiver = devices[message.to]
        let label = "recv \(devices[message.from].name)->\(receiver.name) #\(message.index)\(message.isDuplicate ? " (dup)" : "")"
        if let reason = unreachable(from: message.from, to: message.to) ?? (receiver.isRunning ? nil : "\(receiver.name) down") {
            coverage.count(.messagesBlocked)
            record("\(label) dropped: \(reason)")
            return
        }
        let key = LinkKey(from: message.from, to: message.to)
        if message.index < deliveredOnLink[key] ?? 0 { coverage.count(.messagesReordered) }
        deliveredOnLink[key] = max(deliveredOnLink[key] ?? 0, message.index)

        var limit: Int?
        if receiver.pendingCrash == .midIngest {
            let count = (try? Bundle(decoding: message.bytes, expectedGroup: group.id).segments.count) ?? 0
            limit = count > 0 ? random.below(count) : 0
        }
        guard var link = receiver.links[message.from] else { return }
        let receipt: LinkReceipt
        do {
            receipt = try link.incoming(message.bytes, replica: receiver.running, group: group, segmentLimit: limit)
        } catch {
            throw fail(.unexpected, "\(label): \(error)")
        }
        receiver.links[message.from] = link
        let report = receipt.report
        record("\(label) segments=\(receipt.ingested.count) applied=\(report.opsApplied) held=\(report.opsAlreadyHeld) pending=\(report.segmentsPending)")
        if !report.rejected.isEmpty {
            throw fail(.safety, "\(receiver.name) refused ops from \(devices[message.from].name): \(report.rejected.map(\.description))")
        }
        if report.segmentsPending > 0 { coverage.count(.gapsKeptPending) }
        try checkNothingDropped(receiver, receipt.ingested, vector: receipt.localVector)
        if let limit {
            record("\(receiver.name) killed mid-ingest after \(limit) of \(limit + receipt.abandoned) segments")
            try crashNow(message.to, kind: .midIngest)
            return
        }
        if let reply = receipt.reply { send(reply, from: message.to, to: message.from) }
    }

    /// Every op handed to ingest is now held or kept pending above a gap: ingest never drops
    /// an op it was given (docs/replication.md, "Version vectors and deltas").
    private func checkNothingDropped(_ device: SimulatedDevice, _ segments: [AuthorSegment], vector: VersionVector) throws {
        guard !segments.isEmpty else { return }
        var waiting = 0
        for segment in segments where segment.lastSequence > vector[segment.author] {
            waiting += Int(segment.lastSequence - max(segment.firstSequence - 1, vector[segment.author]))
        }
        guard waiting > 0 else { return }
        let pending = try readReplica(device.index, { try $0.status().pendingOps }) ?? 0
        if pending < waiting {
            throw fail(.safety, "\(device.name) was given \(waiting) ops above a gap but keeps only \(pending) pending: ingest dropped ops")
        }
    }
}
