import Foundation
import HyzerDomain

/// A card: players walking the course together, scoring one round.
struct Card {
    let index: Int
    /// The organizer's phone, which starts, reviews and finishes the round.
    let organizer: Int
    /// The phones whose owners play, organizer first.
    let players: [Int]
    /// Players without a phone of their own, scored by the others.
    let guests: [String]
    /// A seeded course for 18 holes; otherwise a course the organizer adds at setup.
    let courseName: String
    /// Pars of the added course; nil for a seeded one.
    let customPars: [Int]?
    /// Each participant's true score relative to par, per hole (index `hole - 1`).
    let truth: [[Int]]
    /// The course's id: the seeded course's, or the one the organizer added at setup.
    var courseID: UUID?
    /// Filled when the round starts.
    var round: Round?
    /// Each device's latest own score event per (participant, hole): what it corrects.
    var latestEvents: [EventKey: UUID] = [:]

    struct EventKey: Hashable {
        let device: Int
        let participant: Int
        let hole: Int
    }

    /// The true strokes of a participant on a hole of the started round.
    func trueStrokes(participant: Int, hole: Int) -> Int? {
        guard let round, hole >= 1, hole <= round.holeCount, participant < truth.count else { return nil }
        return min(10, max(1, round.pars[hole - 1] + truth[participant][hole - 1]))
    }
}
