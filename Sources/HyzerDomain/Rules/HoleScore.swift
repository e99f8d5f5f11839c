/// The current score of one (round, player, hole), derived from the supersession graph of its
/// score events (docs/rules.md, "Current score").
///
/// Leaves are the valid events of the hole that no valid supersession replaced, always sorted
/// by `(createdAt, id)` with the id compared as lowercase UUID text.
public enum HoleScore: Hashable, Sendable {
    /// No leaf: nobody has scored the hole yet (or every event of it was ignored).
    case unscored
    /// Every leaf has the same stroke count: that is the score. Several leaves here are devices
    /// that recorded the same number, merged silently.
    case scored(strokes: Int, leaves: [ScoreEvent])
    /// The leaves disagree. Standings count the hole with `chosen`, the leaf with the smallest
    /// `(createdAt, id)`, until a resolution ends the dispute.
    case disputed(leaves: [ScoreEvent], chosen: ScoreEvent)

    /// The leaves from the score events, sorted by `(createdAt, id)`.
    init(leaves unsorted: [ScoreEvent]) {
        let leaves = unsorted.sorted(by: CanonicalOrder.precedes)
        guard let first = leaves.first else {
            self = .unscored
            return
        }
        if leaves.allSatisfy({ $0.strokeCount == first.strokeCount }) {
            self = .scored(strokes: first.strokeCount, leaves: leaves)
        } else {
            self = .disputed(leaves: leaves, chosen: first)
        }
    }

    /// The strokes standings count: the agreed stroke count, the chosen leaf's when disputed,
    /// `nil` when unscored.
    public var strokes: Int? {
        switch self {
        case .unscored: nil
        case .scored(let strokes, _): strokes
        case .disputed(_, let chosen): chosen.strokeCount
        }
    }

    /// Whether the hole's leaves disagree.
    public var isDisputed: Bool {
        if case .disputed = self { return true }
        return false
    }

    /// The leaves, sorted by `(createdAt, id)`; empty when unscored.
    public var leaves: [ScoreEvent] {
        switch self {
        case .unscored: []
        case .scored(_, let leaves), .disputed(let leaves, _): leaves
        }
    }
}
