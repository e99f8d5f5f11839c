import Foundation
import Testing

@testable import HyzerEngine
@testable import HyzerSync

/// `RefusalVerdict` (docs/embedding.md, "A refusal no retry changes"), driven with outcomes and
/// instants: closed handshakes make a verdict of another group only when they go on for every
/// key, twice round, and for `otherGroupAfter`; a handshake the peer completes ends it.
@Suite struct RefusalVerdictTests {
    let start = ContinuousClock.now

    static func closed() -> ConnectionOutcome {
        var outcome = ConnectionOutcome()
        outcome.failure = .closedDuringHandshake
        return outcome
    }

    static func proven(failure: SyncFailure? = nil) -> ConnectionOutcome {
        var outcome = ConnectionOutcome()
        outcome.peer = String(repeating: "ab", count: 32)
        outcome.failure = failure
        return outcome
    }

    /// `count` closed handshakes, one every `every` from `from`; the changes they made.
    func close(_ verdict: RefusalVerdict, _ count: Int, every: Duration, from: Duration, epochs: Int = 1) -> [RefusalVerdict.Change] {
        (0..<count).compactMap { verdict.judge(Self.closed(), epochs: epochs, at: start + from + every * $0) }
    }

    @Test func aPeerRestartingClosesManyHandshakesInASecondAndIsNoVerdict() {
        let verdict = RefusalVerdict()
        #expect(close(verdict, 12, every: .milliseconds(100), from: .zero).isEmpty)
        #expect(verdict.refusal == nil)
        #expect(verdict.judge(Self.proven(), epochs: 1, at: start + .seconds(2)) == nil, "no verdict to end")
    }

    @Test func closesOfEveryKeyTwiceRoundForHalfAMinuteAreAVerdictThatAHandshakeEnds() {
        let verdict = RefusalVerdict()
        // With one key, four closes in a row; the fourth comes 2 s after the first, the rest
        // every 2 s (the redialer's longest pause) until 30 s have passed since the first.
        #expect(close(verdict, 15, every: .seconds(2), from: .zero).isEmpty, "28 s after the first close")
        #expect(verdict.judge(Self.closed(), epochs: 1, at: start + .seconds(30)) == .refused(.otherGroup))
        #expect(verdict.refusal == .otherGroup)
        #expect(close(verdict, 3, every: .seconds(60), from: .seconds(90)).isEmpty, "said once")
        #expect(verdict.judge(Self.proven(failure: .peerDead), epochs: 1, at: start + .seconds(300)) == .ended)
        #expect(verdict.refusal == nil)
        #expect(close(verdict, 4, every: .seconds(2), from: .seconds(301)).isEmpty, "a new streak starts from nothing")
    }

    @Test func everyKeyIsClosedTwiceRoundBeforeAVerdict() {
        let verdict = RefusalVerdict()
        // Three keys: eight closes; seven over a minute are not enough.
        #expect(close(verdict, 7, every: .seconds(10), from: .zero, epochs: 3).isEmpty)
        #expect(verdict.judge(Self.closed(), epochs: 3, at: start + .seconds(70)) == .refused(.otherGroup))
    }

    @Test func aProvenPeerBetweenClosesStartsTheStreakAgain() {
        let verdict = RefusalVerdict()
        #expect(close(verdict, 3, every: .seconds(10), from: .zero).isEmpty)
        #expect(verdict.judge(Self.proven(failure: .peerDead), epochs: 1, at: start + .seconds(25)) == nil)
        #expect(close(verdict, 3, every: .seconds(10), from: .seconds(26)).isEmpty, "three closes after the peer proved itself")
        #expect(verdict.judge(Self.closed(), epochs: 1, at: start + .seconds(57)) == .refused(.otherGroup))
    }

    @Test func aFailureWithoutAProvenPeerLeavesTheStreakAsItIs() {
        let verdict = RefusalVerdict()
        #expect(close(verdict, 3, every: .seconds(10), from: .zero).isEmpty)
        var unreachable = ConnectionOutcome()
        unreachable.failure = .handshakeTimeout
        #expect(verdict.judge(unreachable, epochs: 1, at: start + .seconds(25)) == nil)
        #expect(verdict.judge(Self.closed(), epochs: 1, at: start + .seconds(30)) == .refused(.otherGroup))
    }
}
