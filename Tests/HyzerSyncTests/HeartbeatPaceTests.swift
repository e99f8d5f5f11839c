import HyzerKit
import Testing

@testable import HyzerSync

/// docs/sync-protocol.md, "Heartbeats and dead peers": the listener sets the pace. Its hello says
/// after how long a silence it heartbeats; the dialer keeps the same pace (within
/// `SyncEngine.heartbeatMillisecondsRange`), and each side holds the other dead after three
/// heartbeats' silence. A `serve` holding a crowd of idle peers asks for 15 s.
@Suite struct HeartbeatPaceTests {
    let laptop: Peer
    let phone: Peer

    init() throws {
        laptop = try Peer("laptop", owner: "Ann", keySeed: 1)
        phone = try Peer("phone", owner: "Ben", keySeed: 2)
    }

    /// A live pair whose listener heartbeats after `milliseconds` and whose dialer, left alone, after 5 s.
    func pair(listenerHeartbeat milliseconds: UInt64) throws -> EnginePair {
        var pace = SyncEngine.Configuration()
        pace.heartbeatMilliseconds = milliseconds
        var pair = try EnginePair(dialer: phone, listener: laptop, mode: .live)
        pair.sides[1] = try EngineSide(laptop, role: .listener, mode: .live, configuration: pace)
        try pair.start()
        return pair
    }

    @Test func theListenersHelloSetsThePaceOfBothSides() throws {
        var pair = try pair(listenerHeartbeat: 15_000)
        #expect(pair.sides.allSatisfy { !$0.isOver }, "\(pair.report)")
        for side in pair.sides {
            #expect(side.engine.heartbeatMilliseconds == 15_000)
            #expect(side.engine.deadMilliseconds == 45_000)
        }
        // Silence: neither side heartbeats before 15 s, both do at 15 s, and the peer is alive.
        let before = pair.sides.map { $0.driver.counts.bytesSent }
        try pair.tick(now: 14_999)
        #expect(pair.sides.map { $0.driver.counts.bytesSent } == before)
        try pair.tick(now: 15_000)
        #expect(zip(pair.sides, before).allSatisfy { $0.driver.counts.bytesSent > $1 })
        #expect(pair.sides.allSatisfy { !$0.isOver }, "\(pair.report)")
    }

    /// A dialer that hears nothing more holds the listener dead after three of its heartbeats'
    /// silence, not after its own 15 s.
    @Test func aDialerHoldsASilentListenerDeadAfterThreeOfItsHeartbeats() throws {
        let pair = try pair(listenerHeartbeat: 15_000)
        var dialer = pair.sides[0].driver
        let alive = try dialer.tick(now: 44_999)
        #expect(!alive.contains { if case .close = $0 { true } else { false } })
        let dead = try dialer.tick(now: 45_000)
        #expect(dead.contains { if case .close(.peerDead) = $0 { true } else { false } })
    }

    /// What a hostile or mistaken listener asks is held within 0.1 s and a minute: a dialer
    /// neither floods it with heartbeats nor keeps a dead connection for hours.
    @Test(arguments: [(1, 100), (250, 250), (3_600_000, 60_000)] as [(UInt64, UInt64)])
    func theAskedPaceIsBounded(asked: UInt64, kept: UInt64) throws {
        let pair = try pair(listenerHeartbeat: asked)
        #expect(pair.sides[0].engine.heartbeatMilliseconds == kept)
        #expect(pair.sides[0].engine.deadMilliseconds == max(15_000, 3 * kept))
        #expect(pair.sides[1].engine.heartbeatMilliseconds == asked, "the listener keeps its own")
    }

    @Test func theHelloCarriesThePace() throws {
        let hello = SyncMessage.hello(VersionVector(), live: true, heartbeatMilliseconds: 15_000)
        #expect(try SyncMessage(decoding: hello.encoded()) == hello)
        #expect(hello.encoded().prefix(6) == [11, 1, 0, 0, 0x3a, 0x98])
    }
}
