import Foundation

/// Which valid score events of a round are current scores (the leaves): docs/rules.md,
/// "Supersession". A value that `RoundEvaluation` takes, so that the simulator's own tests can
/// hand it a wrong rule and see the harness catch it (docs/simulation.md); everything that
/// ships evaluates with `.supersession`.
public struct MergeRule: Sendable {
    /// The leaves among `valid` (one round's valid events, in canonical order, kept in that
    /// order), given whether an event's listed supersession of an id counts.
    public let leaves: @Sendable (_ valid: [ScoreEvent], _ supersessionCounts: (ScoreEvent, UUID) -> Bool) -> [ScoreEvent]

    /// A rule from its leaf function (the simulator's tests hand in wrong ones; ships only `.supersession`).
    public init(leaves: @escaping @Sendable (_ valid: [ScoreEvent], _ supersessionCounts: (ScoreEvent, UUID) -> Bool) -> [ScoreEvent]) {
        self.leaves = leaves
    }

    /// The rule: the events no valid supersession replaced. The supersession graph decides,
    /// never the clocks.
    public static let supersession = MergeRule { valid, supersessionCounts in
        var superseded: Set<UUID> = []
        for event in valid {
            for id in event.supersedes where supersessionCounts(event, id) { superseded.insert(id) }
        }
        return valid.filter { !superseded.contains($0.id) }
    }
}
