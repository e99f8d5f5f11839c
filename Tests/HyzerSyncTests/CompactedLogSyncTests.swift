import Foundation
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

/// docs/store.md, "Signature compaction": a store keeps few of its ops' signatures, yet every
/// delta it sends still ends each segment at a signed op, through a shared folder and over a
/// connection, and every receiver verifies what it holds.
@Suite struct CompactedLogSyncTests {
    /// `count` commands of about 215 bytes of tail each: a log far longer than 64 KiB.
    static func writeLongLog(_ peer: Peer, count: Int, from first: Int = 0) throws {
        for n in first..<(first + count) {
            try peer.replica.addPlayer(name: "\(peer.name) \(n) " + String(repeating: "x", count: 180))
        }
    }

    @Test func aLongCompactedLogCrossesAFolderAndEveryStoreVerifies() throws {
        let shared = SharedDirectory()
        let a = try Peer("a", owner: "Ann", keySeed: 111)
        let b = try Peer("b", owner: "Ben", keySeed: 112, start: baseTime + 1_000)
        try Self.writeLongLog(a, count: 1_200)
        try Self.writeLongLog(b, count: 50)
        try settle([a, b], shared)
        // A member joining late gets everything from the folder, and writes on.
        let c = try Peer("c", keySeed: 113, start: baseTime + 2_000)
        try Self.writeLongLog(a, count: 400, from: 1_200)
        try settle([a, b, c], shared)
        for peer in [a, b, c] {
            let report = try peer.replica.verify()
            #expect(report.isIntact, "\(peer.name): \(report.problems)")
            #expect(report.opsChecked == 1_655)
            #expect(report.signaturesChecked < 30, "\(peer.name) keeps \(report.signaturesChecked) signatures")
        }
        #expect(try c.replica.players().count == 1_652)
    }

    @Test func aLongCompactedLogCrossesAConnectionRelayedAndEveryStoreVerifies() throws {
        let a = try Peer("a", owner: "Ann", keySeed: 114)
        let b = try Peer("b", keySeed: 115, start: baseTime + 1_000)
        let c = try Peer("c", keySeed: 116, start: baseTime + 2_000)
        try Self.writeLongLog(a, count: 1_000)
        var first = try EnginePair(dialer: b, listener: a)
        try first.start()
        #expect(first.sides.allSatisfy { $0.finished }, "\(first.report)")
        // b relays a's log, compacted as b stored it, to c.
        var second = try EnginePair(dialer: c, listener: b)
        try second.start()
        #expect(second.sides.allSatisfy { $0.finished }, "\(second.report)")
        for peer in [a, b, c] {
            let report = try peer.replica.verify()
            #expect(report.isIntact, "\(peer.name): \(report.problems)")
        }
        #expect(try c.replica.versionVector().entry(a.author) == a.replica.versionVector().entry(a.author))
        #expect(try c.replica.players().count == 1_001)
    }
}
