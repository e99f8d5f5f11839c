import Foundation

/// One thing a player does on a device at a planned instant.
enum WorkloadAction {
    /// The card's organizer starts its round.
    case startRound(card: Int)
    /// `device` records a participant's strokes on a hole: the true score plus `error`.
    case score(ScorePlan)
    /// `device` corrects its own latest score of a participant's hole to the true score.
    case correct(card: Int, device: Int, participant: Int, hole: Int)
    /// The organizer resolves the discrepancies its replica shows.
    case review(card: Int)
    /// The organizer resolves what is left and finishes the round.
    case finish(card: Int)
    /// Several phones edit one course at the same true instant.
    case courseEdit(CourseEdit)
}

/// A planned score.
struct ScorePlan {
    let card: Int
    let device: Int
    /// Index into the round's participants.
    let participant: Int
    let hole: Int
    /// Strokes off the true score: 0, or ±1 for a mistake.
    let error: Int
    /// Tries so far; a device that has not synced the round yet tries again later.
    var attempt = 0
}

/// A race of course edits.
struct CourseEdit {
    enum Change {
        /// Each device renames the course to its own name.
        case rename
        /// Each device sets the hole's par to its own value.
        case par(hole: Int)
        /// One device deletes the course while the others rename it.
        case deleteAndRename(deleter: Int)
    }

    let devices: [Int]
    let course: String
    let change: Change
    /// Planned at the very same millisecond on accurate clocks, so the ops should tie.
    let expectTie: Bool
}
