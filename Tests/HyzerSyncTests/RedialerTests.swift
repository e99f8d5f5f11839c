import Foundation
import Testing

@testable import HyzerKit
@testable import HyzerSync

/// The one reconnect policy of `serve --peer` and the simulator (docs/architecture.md).
@Suite struct RedialerTests {
    /// Three epochs: 1, 2 and 3 (the newest).
    let group = GroupMembership(
        id: UUID(),
        secrets: [1: [UInt8](repeating: 1, count: 32), 2: [UInt8](repeating: 2, count: 32), 3: [UInt8](repeating: 3, count: 32)],
        recipients: [], removed: [], lineage: [])

    @Test func theBackoffDoublesToTheCapWithJitterUpToAFifth() {
        var redialer = Redialer(backoffMaxMilliseconds: 1_000)
        #expect((0..<6).map { _ in redialer.nextDelay { $0.lowerBound } } == [100, 200, 400, 800, 1_000, 1_000])
        var jittered = Redialer(backoffMaxMilliseconds: 1_000)
        #expect((0..<5).map { _ in jittered.nextDelay { $0.upperBound } } == [120, 240, 480, 960, 1_200])
        var hostile = Redialer()
        #expect(hostile.nextDelay { _ in .max } == 120, "a draw outside the range is bounded")
    }

    @Test func anAuthenticatedConnectionStartsTheBackoffOver() {
        var redialer = Redialer()
        for _ in 0..<5 { _ = redialer.nextDelay { $0.lowerBound } }
        redialer.connectionEnded(authenticated: false, failure: .connectionLost, group: group)
        #expect(redialer.nextDelay { $0.lowerBound } == 2_000)
        redialer.connectionEnded(authenticated: true, failure: .peerDead, group: group)
        #expect(redialer.nextDelay { $0.lowerBound } == 100)
    }

    @Test func olderEpochsAreTriedInTurnOnTheSameFailuresOnly() {
        var redialer = Redialer()
        #expect(redialer.dialEpoch == nil)
        redialer.connectionEnded(authenticated: false, failure: .closedDuringHandshake, group: group)
        #expect(redialer.dialEpoch == 2)
        redialer.connectionEnded(authenticated: false, failure: .notAGroupMember, group: group)
        #expect(redialer.dialEpoch == 1)
        redialer.connectionEnded(authenticated: false, failure: .closedDuringHandshake, group: group)
        #expect(redialer.dialEpoch == nil, "past the oldest, back to the newest")
        redialer.connectionEnded(authenticated: false, failure: .closedDuringHandshake, group: group)
        #expect(redialer.dialEpoch == 2)
        redialer.connectionEnded(authenticated: true, failure: .peerDead, group: group)
        #expect(redialer.dialEpoch == nil)
    }

    /// `sync --peer` falls back by the same rule (`PeerSync`), which once knew only the close.
    @Test func oneRuleChoosesTheEpochToDialAfterAFailure() {
        #expect(Redialer.epochToDial(after: .closedDuringHandshake, dialed: nil, group: group) == 2)
        #expect(Redialer.epochToDial(after: .notAGroupMember, dialed: 2, group: group) == 1)
        #expect(Redialer.epochToDial(after: .notAGroupMember, dialed: 1, group: group) == nil, "the oldest was tried")
        #expect(Redialer.epochToDial(after: .connectionLost, dialed: 2, group: group) == nil)
        #expect(Redialer.epochToDial(after: nil, dialed: 2, group: group) == nil)
    }
}
