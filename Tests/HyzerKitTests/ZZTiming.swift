import Foundation
import HyzerKit
import Testing

@Suite struct ZZTiming {
    @Test func timing() throws {
        let clock = ContinuousClock()
        var t = clock.now
        func lap(_ s: String) { print("TIMING \(s): \(clock.now - t)"); t = clock.now }
        let a = try TestReplica("a", owner: "Ava", keySeed: 1)
        lap("create")
        for i in 0..<10 { try a.replica.addPlayer(name: "P\(i)") }
        lap("10 addPlayer")
        let r = try a.replica.startRound(course: "Morley Field", players: ["Ava"])
        for h in 1...10 { try a.replica.recordScore(round: r.id.lowercased, player: "Ava", hole: h, strokes: 3) }
        lap("round + 10 scores")
        _ = try Fingerprint(a.replica)
        lap("fingerprint")
        _ = try a.replica.rounds()
        lap("rounds")
        _ = try a.replica.verify()
        lap("verify")
        _ = try CommandValidationTests.Fixture()
        lap("cmd fixture")
    }
}
