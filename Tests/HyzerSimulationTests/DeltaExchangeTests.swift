import HyzerDomain
import HyzerKit
import HyzerSimulation
import Testing

@Suite struct DeltaExchangeTests {
    let author = AuthorID(bytes: Array(repeating: 1, count: 32))!

    func vector(_ sequence: UInt64) -> VersionVector {
        VersionVector([author: sequence])
    }

    @Test func sendsOptimisticallyAboveWhatItSent() {
        var exchange = DeltaExchange(resyncEvery: 100, heartbeatEvery: 100)
        #expect(exchange.tick(local: vector(3)) == .send(above: VersionVector()))
        exchange.sent(local: vector(3))
        #expect(exchange.tick(local: vector(3)) == .idle)
        #expect(exchange.tick(local: vector(5)) == .send(above: vector(3)))
    }

    @Test func resyncFallsBackToWhatThePeerReported() {
        var exchange = DeltaExchange(resyncEvery: 2, heartbeatEvery: 100)
        _ = exchange.tick(local: vector(4))
        exchange.sent(local: vector(4))
        _ = exchange.received(peerVector: vector(1), local: vector(4))
        #expect(exchange.tick(local: vector(4)) == .send(above: vector(1)))
    }

    @Test func answersWhatThePeerLacks() {
        var exchange = DeltaExchange()
        #expect(exchange.received(peerVector: vector(2), local: vector(2)) == .idle)
        #expect(exchange.received(peerVector: vector(2), local: vector(6)) == .send(above: vector(2)))
    }

    @Test func heartbeatsAnnounceTheVector() {
        var exchange = DeltaExchange(resyncEvery: 100, heartbeatEvery: 3)
        _ = exchange.tick(local: vector(1))
        exchange.sent(local: vector(1))
        #expect(exchange.tick(local: vector(1)) == .idle)
        #expect(exchange.tick(local: vector(1)) == .send(above: vector(1)))
    }
}
