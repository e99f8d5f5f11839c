import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import Testing

@testable import HyzerSync

/// A tick reaches only the connections with something due by then (docs/performance.md, "A
/// crowd"); "the store changed" reaches every one.
@Suite struct TickDueTests {
    /// What each subscriber was handed.
    final class Received: @unchecked Sendable {
        // @unchecked: `signals` is only touched under `lock`.
        private let lock = NSLock()
        private var signals: [String: [ConnectionSignals.Signal]] = [:]

        func deliver(to name: String) -> @Sendable (ConnectionSignals.Signal, @escaping @Sendable () -> Void) -> Void {
            { [self] signal, handled in
                lock.withLock { signals[name, default: []].append(signal) }
                handled()
            }
        }

        func of(_ name: String) -> [ConnectionSignals.Signal] { lock.withLock { signals[name] ?? [] } }
    }

    @Test func aTickReachesOnlyTheMailboxesWithSomethingDue() {
        let signals = ConnectionSignals()
        let received = Received()
        let now = ContinuousClock.now
        let fresh = signals.subscribe(received.deliver(to: "fresh"))
        let due = signals.subscribe(received.deliver(to: "due"))
        let later = signals.subscribe(received.deliver(to: "later"))
        let over = signals.subscribe(received.deliver(to: "over"))
        due.tickDue(.at(now - .seconds(1)))
        later.tickDue(.at(now + .seconds(60)))
        over.tickDue(.never)
        signals.publish(.tick)
        #expect(received.of("fresh") == [.tick], "a connection that has not said when takes every tick")
        #expect(received.of("due") == [.tick])
        #expect(received.of("later").isEmpty, "nothing due for a minute: no tick")
        #expect(received.of("over").isEmpty)
        signals.publish(.storeChanged)
        #expect(received.of("later") == [.storeChanged], "a store change reaches every connection")
        #expect(received.of("over") == [.storeChanged])
        later.tickDue(.at(now))
        signals.publish(.tick)
        #expect(received.of("later") == [.storeChanged, .tick], "once due, the next tick comes")
        over.writeDue(now - .seconds(1))
        signals.publish(.tick)
        #expect(received.of("over") == [.storeChanged, .tick], "a write past its deadline is checked on the next tick")
        over.writeDue(nil)
        signals.publish(.tick)
        #expect(received.of("over") == [.storeChanged, .tick])
        for mailbox in [fresh, due, later, over] { signals.unsubscribe(mailbox) }
    }

    /// The driver's next tick is the engine's next deadline: a heartbeat's or a timeout's.
    @Test func theDriversNextTickIsItsEnginesDeadline() throws {
        let peer = try Peer("ann", keySeed: 41)
        var driver = ConnectionDriver(
            replica: peer.replica, group: testGroup, role: .listener, mode: .live, ephemeral: KeyExchange(),
            budget: BundleBudget(bytesMax: 1 << 20), now: 1_000)
        let configuration = SyncEngine.Configuration()
        let handshake = 1_000 + min(configuration.handshakeTimeoutMilliseconds, configuration.firstMessageTimeoutMilliseconds ?? .max)
        #expect(driver.nextTickDue == handshake)
        _ = try driver.connectionClosed()
        #expect(driver.nextTickDue == nil, "a closed connection takes no ticks")
    }
}
