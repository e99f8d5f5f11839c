import HyzerDomain
import HyzerKit

/// A round's card: every participant's current score on every hole (docs/rules.md, "Current
/// score"), as a live scoring screen shows it.
public struct Scorecard: Hashable, Sendable {
    /// One participant's row.
    public struct Line: Hashable, Sendable {
        /// Who.
        public let participant: ParticipantID
        /// Their name as the round lists it.
        public let name: String
        /// The current score of hole `n` at index `n - 1`: unscored, scored, or disputed with
        /// the leaves that disagree.
        public let holes: [HoleScore]
    }

    /// The round.
    public let round: RoundID
    /// The course's name when the round started.
    public let course: String
    /// Where the round stands: in progress, awaiting its finish, or completed.
    public let status: RoundStatus
    /// Par of hole `n` at index `n - 1`.
    public let pars: [Int]
    /// One line per participant, in the order the round lists them.
    public let lines: [Line]

    init(_ view: RoundView) {
        round = RoundID(view.round.id)
        course = view.round.courseName
        status = view.evaluation.status
        pars = view.round.pars
        lines = view.round.participants.map { participant in
            Line(
                participant: participant.id, name: participant.name,
                holes: (1...max(1, view.round.holeCount)).filter { $0 <= view.round.holeCount }.map {
                    view.evaluation.score(player: participant.id, hole: $0)
                })
        }
    }
}
