import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Years of play for the view benchmarks: 8 registered players, finished rounds of 18 holes,
/// each with every score, a few corrections, and a finish by the organizer.
enum BenchHistory {
    /// One author's log: a first segment holding `rounds` rounds, then one segment per round for
    /// `later` more (what later syncs bring). `lastRound` is the first segment's last round.
    static func segments(keys: SigningKeyPair, rounds: Int, later: Int) -> (
        first: AuthorSegment, later: [AuthorSegment], lastRound: UUID, player: ParticipantID
    ) {
        let log = log(author: keys.author, rounds: rounds + later)
        // Each segment's last op carries the author's signature.
        func segment(_ range: Range<Int>) -> AuthorSegment {
            var piece = Array(log.ops[range])
            piece[piece.count - 1] = signed(piece[piece.count - 1], keys)
            return AuthorSegment(ops: piece)
        }
        let laterSegments = (rounds..<(rounds + later)).map { segment(log.ends[$0 - 1]..<log.ends[$0]) }
        return (segment(0..<log.ends[rounds - 1]), laterSegments, log.rounds[rounds - 1], log.player)
    }

    /// The author's log as a device writes it, one command a segment: every op its own signed
    /// segment (docs/store.md).
    static func commands(keys: SigningKeyPair, rounds: Int) -> [AuthorSegment] {
        log(author: keys.author, rounds: rounds).ops.map { AuthorSegment(ops: [signed($0, keys)]) }
    }

    private static func signed(_ op: SignedOp, _ keys: SigningKeyPair) -> SignedOp {
        op.with(signature: keys.sign(SignedOp.signedMessage(hash: op.hash)))
    }

    /// The unsigned ops of `rounds` rounds, with where each round ends (the index after its
    /// finish), each round's id, and the player the views' figures follow.
    private static func log(author: AuthorID, rounds: Int) -> (ops: [SignedOp], ends: [Int], rounds: [UUID], player: ParticipantID) {
        var ops: [SignedOp] = []
        var previous = SignedOp.noPreviousHash
        var clock = HLCTimestamp(physicalMilliseconds: 1_600_000_000_000)
        @discardableResult
        func append(_ payload: OpPayload) -> SignedOp {
            clock.physicalMilliseconds += 60_000
            let op = SignedOp(
                author: author, sequence: UInt64(ops.count + 1), previousHash: previous,
                tail: SignedOp.tail(clock: clock, payloadBytes: payload.encoded()), signature: nil)
            ops.append(op)
            previous = op.hash
            return op
        }
        append(.deviceRegistered(name: "bench-phone", kind: .phone))
        let players = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"].map { append(.playerCreated(displayName: $0)).entityID }
        let course = SeededCourses.all[1]
        var roundIDs: [UUID] = []
        var ends: [Int] = []
        for roundIndex in 0..<rounds {
            let start = append(
                .roundStarted(
                    RoundStart(
                        courseID: course.id, courseName: course.name, organizer: .player(players[0]),
                        participants: players.map { .player($0) }, pars: course.pars)))
            roundIDs.append(start.entityID)
            for hole in 1...18 {
                for (index, player) in players.enumerated() {
                    let strokes = 2 + (roundIndex + hole * 3 + index * 7) % 4
                    let score = append(
                        .scoreRecorded(
                            ScoreRecord(
                                roundID: start.entityID, hole: hole, player: .player(player), strokes: strokes, supersedes: [],
                                reportedBy: .player(players[0]))))
                    if (hole + index + roundIndex) % 37 == 0 {
                        append(
                            .scoreRecorded(
                                ScoreRecord(
                                    roundID: start.entityID, hole: hole, player: .player(player), strokes: strokes + 1,
                                    supersedes: [score.entityID], reportedBy: .player(players[0]))))
                    }
                }
            }
            append(.roundFinished(roundID: start.entityID, force: false))
            ends.append(ops.count)
        }
        return (ops, ends, roundIDs, ParticipantID(player: players[3]))
    }
}
