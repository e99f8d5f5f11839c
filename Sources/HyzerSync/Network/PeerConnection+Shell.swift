import HyzerDomain
import HyzerKit

extension PeerConnection {
    /// Feeds the engine and performs its actions for one connection.
    struct Shell {
        let connection: PeerConnection
        let writes: AsyncStream<[UInt8]>.Continuation
        var outcome = ConnectionOutcome()

        /// Handles events until the engine closes.
        mutating func drive(
            _ engine: inout SyncEngine, events: AsyncStream<(Event, AsyncStream<Void>.Continuation)>, now: () -> UInt64
        ) async {
            guard await perform(engine.start(now: now()), &engine, now: now) else { return }
            for await (event, done) in events {
                defer { done.finish() }
                let actions: [SyncEngine.Action]
                switch event {
                case .frame(let bytes):
                    outcome.bytesReceived += bytes.count + 4
                    actions = engine.receive(frame: bytes, now: now())
                case .tick:
                    actions = engine.tick(now: now())
                case .storeChanged:
                    guard engine.isOpen else { continue }
                    do {
                        let vector = try await connection.store { try $0.versionVector() }
                        actions = engine.localChanged(localVector: vector, now: now())
                    } catch {
                        outcome.failure = .storeFailed("\(error)")
                        return
                    }
                case .ended(nil):
                    actions = engine.connectionClosed()
                case .ended(let failure?):
                    outcome.failure = failure
                    return
                }
                let wasAuthenticated = outcome.peer != nil
                guard await perform(actions, &engine, now: now) else { return }
                if !wasAuthenticated, let peer = engine.peer {
                    outcome.peer = peer.hex
                    await connection.onAuthenticated()
                }
            }
        }

        /// Performs actions in order, with the store's answers; `false` once the engine closed.
        private mutating func perform(_ actions: [SyncEngine.Action], _ engine: inout SyncEngine, now: () -> UInt64) async -> Bool {
            var pending = actions[...]
            while let action = pending.popFirst() {
                switch action {
                case .write(let bytes):
                    writes.yield(bytes)
                    outcome.bytesSent += bytes.count + 4
                case .prepareDelta(let above):
                    let group = connection.group
                    let bytesMax = engine.configuration.bundleBytesMax
                    do {
                        let delta = try await connection.store { replica in
                            let vector = try replica.versionVector()
                            let segments = try replica.delta(above: above)
                            let bundles = Bundle.packed(
                                segments, groupID: group.id, sender: replica.author, senderVector: vector, bytesMax: bytesMax,
                                signedBy: replica.signature(of:))
                            return (bundles: bundles, vector: vector, ops: segments.reduce(0) { $0 + $1.tails.count })
                        }
                        outcome.opsSent += delta.ops
                        pending = engine.deltaPrepared(delta.bundles, upTo: delta.vector, now: now())[...] + pending
                    } catch {
                        outcome.failure = .storeFailed("\(error)")
                        return false
                    }
                case .ingest(let bundle):
                    do {
                        let result = try await connection.store { replica in (try replica.ingest(bundle.segments), try replica.versionVector()) }
                        outcome.opsReceived += result.0.opsApplied
                        for rejected in result.0.rejected {
                            connection.logger.warning("segment refused", metadata: ["peer": "\(outcome.peer ?? "")", "reason": "\(rejected)"])
                        }
                        pending = engine.ingested(senderVector: bundle.senderVector, localVector: result.1, now: now())[...] + pending
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
