import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Made-up but realistic data for the benchmarks: one author's log of rounds on Morley Field,
/// 8 players over 18 holes each, a round start followed by its 144 score events, over and over.
public enum BenchData {
    static let players = (0..<8).map { UUID(v5: "bench-player-\($0)", namespace: SeededCourses.namespace) }

    /// The first `count` ops of such a log by `keys`, chained, with only the last one signed.
    public static func ops(keys: SigningKeyPair, count: Int, startMilliseconds: UInt64 = 1_700_000_000_000) -> [SignedOp] {
        let author = keys.author
        let course = SeededCourses.all[0]
        var ops: [SignedOp] = []
        ops.reserveCapacity(count)
        var previous = SignedOp.noPreviousHash
        var round = UUID()
        var scored = 144
        for index in 0..<count {
            let payload: OpPayload
            if scored == 144 {
                payload = .roundStarted(
                    RoundStart(
                        courseID: course.id, courseName: course.name, organizer: .player(players[0]),
                        participants: players.map { .player($0) }, pars: course.pars))
                scored = 0
            } else {
                payload = .scoreRecorded(
                    ScoreRecord(
                        roundID: round, hole: scored / players.count + 1, player: .player(players[scored % players.count]),
                        strokes: 2 + index % 4, supersedes: [], reportedBy: .player(players[0])))
                scored += 1
            }
            let clock = HLCTimestamp(physicalMilliseconds: startMilliseconds + UInt64(index) * 750)
            let op = SignedOp(
                author: author, sequence: UInt64(index + 1), previousHash: previous,
                tail: SignedOp.tail(clock: clock, payloadBytes: payload.encoded()), signature: nil)
            if case .roundStarted = payload { round = op.entityID }
            ops.append(op)
            previous = op.hash
        }
        let last = ops[ops.count - 1]
        ops[ops.count - 1] = last.with(signature: keys.sign(SignedOp.signedMessage(hash: last.hash)))
        return ops
    }
}
