import HyzerDomain
import HyzerKit
import Logging
import NIOPosix

extension PeerConnection {
    /// Feeds one connection's `ConnectionDriver` with frames, ticks and store changes, and
    /// writes what it returns. The driver's calls that may touch the store run on NIO's thread
    /// pool, never on an event loop or the cooperative pool, and so do the handshake's frames;
    /// ticks, and frames of the open stream whose handling needs no store
    /// (`ConnectionDriver.Taken.needsStore`), run inline.
    struct Shell {
        let connection: PeerConnection
        let writes: AsyncStream<[UInt8]>.Continuation
        let driver: DriverBox
        /// The write in progress: checked on ticks.
        let watch: WriteWatch
        var outcome = ConnectionOutcome()
        var writerStarted = false
        /// Whether the server was told the dialer's first message verified.
        var firstMessageVerified = false
        /// The revision of what the peer holds the progress listener was last told.
        var reportedHolds: Int?

        init(connection: PeerConnection, driver: ConnectionDriver, writes: AsyncStream<[UInt8]>.Continuation, watch: WriteWatch) {
            self.connection = connection
            self.writes = writes
            self.driver = DriverBox(driver)
            self.watch = watch
        }

        /// Handles events until the driver closes; after each, tells `ticksFrom` when the driver
        /// next has something to do on a tick (`ConnectionDriver.nextTickDue`), so that ticks
        /// before then are not delivered.
        mutating func drive(
            events: AsyncStream<Delivery>, now: @escaping @Sendable () -> UInt64, ticksFrom: @Sendable (UInt64?) -> Void,
            startWriter: () -> Void
        ) async {
            guard await step({ try $0.start(now: now()) }, startWriter: startWriter) else { return }
            ticksFrom(driver.driver.nextTickDue)
            for await delivery in events {
                assert(!driver.driver.isOver, "no event is handled once the driver is over")
                // A signal leaves its mailbox before it is handled, so a commit that lands while
                // this one reads the store posts a new signal instead of being folded into this
                // one. A frame is released after it is handled: that is the reader's backpressure.
                let isSignal = if case .signal = delivery.event { true } else { false }
                if isSignal { delivery.handled() }
                defer { if !isSignal { delivery.handled() } }
                let goesOn: Bool
                switch delivery.event {
                case .frame(let bytes) where driver.driver.engine.isOpen:
                    // On the open stream the engine decrypts and decides inline (a heartbeat, a
                    // `have`); only store work goes to the pool.
                    let taken = driver.driver.take(frame: bytes, now: now())
                    goesOn =
                        taken.needsStore
                        ? await step({ try $0.perform(taken) }, startWriter: startWriter)
                        : perform(Self.run(driver) { try $0.perform(taken) }, startWriter: startWriter)
                case .frame(let bytes):
                    // The handshake's key exchanges and signatures stay off the cooperative pool,
                    // which a crowd of connections shares.
                    goesOn = await step({ try $0.receive(frame: bytes, now: now()) }, startWriter: startWriter)
                case .signal(.tick):
                    guard !watch.isStalled else {
                        outcome.failure = .stalled
                        return
                    }
                    goesOn = perform(Self.run(driver) { try $0.tick(now: now()) }, startWriter: startWriter)
                case .signal(.storeChanged):
                    // A delta already read for this peer (by the writer as it committed, or by
                    // another connection) needs no store work: the change is answered inline.
                    let shared: [ConnectionDriver.Output]?
                    do { shared = try driver.driver.storeChangedFromSharing(now: now()) } catch {
                        shared = [.close(.storeFailed("\(error)"))]
                    }
                    goesOn =
                        if let shared { perform(shared, startWriter: startWriter) } else {
                            await step({ try $0.storeChanged(now: now()) }, startWriter: startWriter)
                        }
                case .ended(nil), .ended(.connectionLost?):
                    // A reset is a close too: the engine knows whether it came during the handshake.
                    goesOn = perform(Self.run(driver) { try $0.connectionClosed() }, startWriter: startWriter)
                case .ended(let failure?):
                    outcome.failure = failure
                    goesOn = false
                }
                guard goesOn else { return }
                ticksFrom(driver.driver.nextTickDue)
                await observe()
            }
        }

        /// Runs one driver call on the thread pool and performs its outputs; false once the connection is over.
        private mutating func step(
            _ call: @escaping @Sendable (inout ConnectionDriver) throws -> [ConnectionDriver.Output], startWriter: () -> Void
        ) async -> Bool {
            let driver = driver
            let outputs: [ConnectionDriver.Output]
            do {
                outputs = try await NIOThreadPool.singleton.runIfActive { Self.run(driver, call) }
            } catch {
                outcome.failure = .storeFailed("\(error)")
                return false
            }
            return perform(outputs, startWriter: startWriter)
        }

        private static func run(
            _ box: DriverBox, _ call: (inout ConnectionDriver) throws -> [ConnectionDriver.Output]
        ) -> [ConnectionDriver.Output] {
            do { return try call(&box.driver) } catch { return [.close(.storeFailed("\(error)"))] }
        }

        /// Writes, or ends; false once the connection is over.
        private mutating func perform(_ outputs: [ConnectionDriver.Output], startWriter: () -> Void) -> Bool {
            assert(
                outputs.dropLast().allSatisfy { if case .write = $0 { true } else { false } }, "a close or a finish is the last output")
            let counts = driver.driver.counts
            outcome.opsSent = counts.opsSent
            outcome.opsReceived = counts.opsReceived
            outcome.bytesSent = counts.bytesSent
            outcome.bytesReceived = counts.bytesReceived
            outcome.handshakeBytes = counts.handshakeBytes
            for output in outputs {
                switch output {
                case .write(let bytes):
                    if !writerStarted {
                        writerStarted = true
                        startWriter()
                    }
                    writes.yield(bytes)
                case .close(let failure):
                    outcome.failure = failure
                    return false
                case .finish:
                    return false
                }
            }
            return !driver.driver.isOver
        }

        /// Tells the progress listener that the peer proved itself and what it holds, when that changed.
        private mutating func observe() async {
            let engine = driver.driver.engine
            if !firstMessageVerified, engine.verifiedFirstMessage {
                firstMessageVerified = true
                await connection.onFirstMessageVerified()
            }
            assert(outcome.peer == nil || outcome.peer == engine.peer?.hex, "the handshake proves one peer, once")
            if outcome.peer == nil, let peer = engine.peer {
                outcome.peer = peer.hex
                connection.signals.progress(.opened(peer: peer))
                await connection.onAuthenticated()
            }
            guard engine.isOpen, let peer = engine.peer, engine.peerHoldsRevision != reportedHolds else { return }
            reportedHolds = engine.peerHoldsRevision
            connection.signals.progress(.peerHolds(peer: peer, engine.peerHolds))
        }
    }

    /// The driver, handed to the thread pool one call at a time: the shell awaits each call
    /// before the next, so it is never touched from two threads at once.
    final class DriverBox: @unchecked Sendable {
        var driver: ConnectionDriver
        init(_ driver: ConnectionDriver) { self.driver = driver }
    }

    /// Logs what a connection's store work refused or admitted.
    final class LogObserver: ConnectionObserver {
        let logger: Logger

        init(logger: Logger) { self.logger = logger }

        func ingested(_ segments: [AuthorSegment], of bundle: Bundle, report: IngestReport, vector: VersionVector) throws -> Bool {
            for rejected in report.rejected {
                logger.warning("segment refused", metadata: ["peer": "\(bundle.sender.hex)", "reason": "\(rejected)"])
            }
            return true
        }

        func admitted(_ request: JoinRequest, _ admission: Admission) {
            guard admission.refusal == nil else { return }
            logger.notice("admitted a device with an invitation", metadata: ["device": "\(request.device.short)"])
        }
    }
}
