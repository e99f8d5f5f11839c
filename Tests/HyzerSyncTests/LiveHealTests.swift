import HyzerCrypto
import HyzerDomain
import Testing

@testable import HyzerKit
@testable import HyzerSync

/// A live connection heals any wrong belief of what the peer holds (docs/sync-protocol.md,
/// "Live connections heal"): two `ConnectionDriver`s over real replicas, time in the test's hands.
@Suite struct LiveHealTests {
    static let hour: UInt64 = 3_600_000
    let laptop: Peer
    let phone: Peer

    init() throws {
        laptop = try Peer("laptop", owner: "Ann", keySeed: 1)
        // The phone's clock runs five hours behind: every op of the laptop is held for it.
        phone = try Peer("phone", owner: "Ben", keySeed: 2, start: baseTime - 5 * Self.hour)
    }

    /// The laptop writes `count` ops, each pushed to the phone as its own bundle, a second apart.
    private func write(_ count: Int, on pair: inout EnginePair, from start: UInt64) throws -> UInt64 {
        var now = start
        for n in 0..<count {
            try laptop.replica.addPlayer(name: "Player \(n)")
            now += 1_000
            try pair.storeChanged(at: 1, now: now)
        }
        return now
    }

    /// The case: a clock-behind phone stays connected while the laptop writes more
    /// segments than its junk caps keep; once its clock is put right it holds everything within
    /// one heartbeat interval, on the same connection, nobody restarting anything.
    @Test func aClockBehindPhoneConvergesWithinAHeartbeatOfItsClockPutRight() throws {
        var pair = try EnginePair(dialer: phone, listener: laptop, mode: .live)
        try pair.start()
        #expect(pair.sides.allSatisfy { $0.engine.mode == .live && !$0.isOver }, "\(pair.report)")
        let cap = JunkLimits.caps.segmentsPerAuthor
        var now = try write(cap + 60, on: &pair, from: 0)
        // Heartbeats while the phone's clock is still behind: it has no room aside, so it asks for nothing.
        for _ in 0..<4 {
            now += 5_000
            try pair.tick(now: now)
        }
        #expect(pair.sides.allSatisfy { !$0.isOver }, "\(pair.report)")
        let held = try phone.replica.segmentsAside().held
        #expect(held <= cap, "the cap evicted")
        #expect(try phone.replica.holdings().vector[laptop.author] < laptop.replica.versionVector()[laptop.author])
        #expect(pair.sides[0].driver.counts.holdingsSent == 0)

        // The clock is put right.
        phone.clock.set(baseTime + 2 * Self.hour)
        let fixedAt = now
        while try phone.replica.digest() != laptop.replica.digest(), now < fixedAt + 10_000 {
            now += 250
            try pair.tick(now: now)
        }
        #expect(try phone.replica.digest() == laptop.replica.digest(), "\(pair.report)")
        let heartbeat: UInt64 = pair.sides[1].engine.configuration.heartbeatMilliseconds
        let took: UInt64 = now - fixedAt
        #expect(took <= heartbeat + 250, "took \(took) ms")
        #expect(pair.sides[0].driver.counts.holdingsSent >= 1)
        #expect(pair.sides.allSatisfy { !$0.isOver }, "\(pair.report)")
    }

    /// A clock-behind phone within its caps is never sent again what it holds aside: heartbeats
    /// carry the laptop's belief, which matches the phone's holdings, and cost no bundle.
    @Test func whatAPhoneHoldsAsideIsNotSentAgain() throws {
        var pair = try EnginePair(dialer: phone, listener: laptop, mode: .live)
        try pair.start()
        var now = try write(20, on: &pair, from: 0)
        #expect(try phone.replica.segmentsAside().held > 0)
        let sent = pair.sides[1].driver.counts
        for _ in 0..<12 {
            now += 5_000
            try pair.tick(now: now)
        }
        // A change after the heartbeats: only the new op travels.
        try laptop.replica.addPlayer(name: "Late")
        try pair.storeChanged(at: 1, now: now + 1)
        #expect(pair.sides[1].driver.counts.opsSent == sent.opsSent + 1)
        #expect(pair.sides[0].driver.counts.holdingsSent == 0)
        #expect(pair.sides.allSatisfy { !$0.isOver }, "\(pair.report)")
    }
}
