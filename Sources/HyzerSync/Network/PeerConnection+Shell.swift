import HyzerDomain
import HyzerKit

extension PeerConnection {
    /// Feeds the engine and performs its actions for one connection.
    struct Shell {
        let connection: PeerConnection
        let writes: AsyncStream<[UInt8]>.Continuation
        var outcome = ConnectionOutcome()
        var writerStarted = false
        /// Whether the server was told the dialer's first message verified.
        var firstMessageVerified = false
        /// What the progress listener was last told the peer holds.
        var reportedHolds: VersionVector?
        /// Whether the actions being performed answer "the store changed": their delta is
        /// shared with the process's other connections (`ConnectionSignals.deltaAfterLatestChange`).
        var answeringChange = false

        /// Handles events until the engine closes.
        mutating func drive(
            _ engine: inout SyncEngine, events: AsyncStream<Delivery>, now: () -> UInt64, startWriter: () -> Void
        ) async {
            guard await perform(engine.start(now: now()), &engine, now: now, startWriter: startWriter) else { return }
            for await delivery in events {
                // A signal leaves its mailbox before it is handled, so a commit that lands while
                // this one reads the store posts a new signal instead of being folded into this
                // one. A frame is released after it is handled: that is the reader's backpressure.
                let isSignal = if case .signal = delivery.event { true } else { false }
                if isSignal { delivery.handled() }
                defer { if !isSignal { delivery.handled() } }
                let actions: [SyncEngine.Action]
                switch delivery.event {
                case .frame(let bytes):
                    outcome.bytesReceived += bytes.count + 4
                    actions = engine.receive(frame: bytes, now: now())
                case .signal(.tick):
                    actions = engine.tick(now: now())
                case .signal(.storeChanged):
                    guard engine.isOpen else { continue }
                    guard let vector = await localVector(sharedAfterChange: true) else { return }
                    actions = engine.localChanged(localVector: vector, now: now())
                    answeringChange = true
                case .ended(nil), .ended(.connectionLost?):
                    // A reset is a close too: the engine knows whether it came during the handshake.
                    actions = engine.connectionClosed()
                case .ended(let failure?):
                    outcome.failure = failure
                    return
                }
                let performed = await perform(actions, &engine, now: now, startWriter: startWriter)
                answeringChange = false
                guard performed else { return }
                reportPeerHolds(engine)
                if !firstMessageVerified, engine.verifiedFirstMessage {
                    firstMessageVerified = true
                    await connection.onFirstMessageVerified()
                }
                if outcome.peer == nil, let peer = engine.peer {
                    // The peer proved it is a member: now the store is worth reading (for the
                    // hello, sent once the stream opens).
                    outcome.peer = peer.hex
                    connection.signals.progress(.opened(peer: peer))
                    await connection.onAuthenticated()
                    guard let vector = await localVector() else { return }
                    guard await perform(engine.localChanged(localVector: vector, now: now()), &engine, now: now, startWriter: startWriter)
                    else { return }
                }
            }
        }

        /// Tells the progress listener what the peer holds, when that changed.
        private mutating func reportPeerHolds(_ engine: SyncEngine) {
            guard engine.isOpen, let peer = engine.peer, engine.peerHolds != reportedHolds else { return }
            reportedHolds = engine.peerHolds
            connection.signals.progress(.peerHolds(peer: peer, engine.peerHolds))
        }

        /// The store's version vector; `nil` (and the failure recorded) when the store fails.
        /// After a change, the read is shared with the process's other connections.
        private mutating func localVector(sharedAfterChange: Bool = false) async -> VersionVector? {
            let signals = connection.signals
            do {
                return try await connection.store { replica in
                    sharedAfterChange ? try signals.vectorAfterLatestChange { try replica.versionVector() } : try replica.versionVector()
                }
            } catch {
                outcome.failure = .storeFailed("\(error)")
                return nil
            }
        }

        /// Performs actions in order, with the store's answers; `false` once the engine closed.
        private mutating func perform(
            _ actions: [SyncEngine.Action], _ engine: inout SyncEngine, now: () -> UInt64, startWriter: () -> Void
        ) async -> Bool {
            var pending = actions[...]
            while let action = pending.popFirst() {
                switch action {
                case .write(let bytes):
                    if !writerStarted {
                        writerStarted = true
                        startWriter()
                    }
                    writes.yield(bytes)
                    outcome.bytesSent += bytes.count + 4
                case .prepareDelta(let above):
                    let group = connection.group
                    let bytesMax = engine.configuration.bundleBytesMax
                    let peer = engine.peer
                    let shared = answeringChange ? connection.signals : nil
                    do {
                        let delta = try await connection.store { replica in
                            // A peer removed while connected is sent nothing more (docs/security.md).
                            if let peer, try replica.removedMembers()[peer] != nil { throw SyncFailure.peerRemoved(peer) }
                            guard let shared else { return try replica.deltaBundles(above: above, group: group, bytesMax: bytesMax) }
                            let request = ConnectionSignals.DeltaRequest(above: above, group: group.id, bytesMax: bytesMax)
                            return try shared.deltaAfterLatestChange(request) {
                                try replica.deltaBundles(above: above, group: group, bytesMax: bytesMax)
                            }
                        }
                        outcome.opsSent += delta.ops
                        pending = engine.deltaPrepared(delta.bundles, upTo: delta.vector, now: now())[...] + pending
                    } catch {
                        outcome.failure = error as? SyncFailure ?? .storeFailed("\(error)")
                        return false
                    }
                case .ingest(let bundle):
                    let live = connection.mode == .live
                    do {
                        let (report, vector) = try await connection.store { replica in
                            let report = try replica.ingest(bundle.segments)
                            // A live device signs its receipt of a round whose finish just arrived
                            // (docs/domain.md, "Round receipts"); the change goes out as any other.
                            if live, report.finishesApplied > 0 { try replica.signReceipts() }
                            return (report, try replica.versionVector())
                        }
                        outcome.opsReceived += report.opsApplied
                        for rejected in report.rejected {
                            connection.logger.warning(
                                "segment refused", metadata: ["peer": "\(outcome.peer ?? "")", "reason": "\(rejected)"])
                        }
                        pending = engine.ingested(senderVector: bundle.senderVector, localVector: vector, now: now())[...] + pending
                    } catch {
                        outcome.failure = .storeFailed("\(error)")
                        return false
                    }
                case .admit(let request):
                    do {
                        let admission = try await connection.store { replica in try replica.admit(request) }
                        if admission.refusal == nil {
                            connection.logger.notice(
                                "admitted a device with an invitation", metadata: ["device": "\(request.device.short)"])
                        }
                        pending = engine.admitted(admission, now: now())[...] + pending
                    } catch {
                        outcome.failure = .storeFailed("\(error)")
                        return false
                    }
                case .close(let failure):
                    outcome.failure = failure
                    return false
                case .finish:
                    return false
                }
            }
            return !engine.isClosed
        }
    }
}
