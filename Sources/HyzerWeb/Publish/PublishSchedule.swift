/// When `serve --publish` writes the site (docs/bucket-sync.md, "Publishing the leaderboard"):
/// a pure state machine, told of changes and of finished publishes, answering what to do now.
///
/// Once at the start, then after each change of the store, at most once a `spacing`: the first
/// change after a quiet second publishes at once (a score reaches the pages without waiting),
/// and changes within a second of a publish's start wait for the next slot, where one publish
/// covers them all. A publish that found every file unchanged sent no request and holds no slot
/// (the store's change signal may come twice for one commit: the second must not delay the
/// next score). A publish that failed is tried again after a back-off that doubles from one
/// second to a minute, and then even without a new change.
struct PublishSchedule: Equatable, Sendable {
    /// How a publish ended.
    enum Outcome: Equatable, Sendable {
        /// Every changed file was written (at least one).
        case wrote
        /// No file had changed: nothing was sent.
        case unchanged
        /// The store could not be read or a write failed.
        case failed
    }

    enum Action: Equatable, Sendable {
        /// Publish now (the schedule counts it as started).
        case publish
        /// Ask again after this long: a publish is due, not yet.
        case wait(Duration)
        /// Nothing is due: wait for a change.
        case idle
    }

    /// The least time between the starts of two publishes.
    static let spacing: Duration = .seconds(1)
    /// The first back-off after a failed publish; each further failure doubles it.
    static let firstBackoff: Duration = .seconds(1)
    /// The longest back-off.
    static let longestBackoff: Duration = .seconds(60)

    /// Whether a change is not yet covered by a publish (true at first: the site is written once at the start).
    private(set) var pending = true
    /// When the latest publish that wrote (or is running) started.
    private(set) var lastStart: Duration?
    /// When the one before it started: the slot again, when the latest wrote nothing.
    private var startBefore: Duration?
    /// Failed publishes in a row.
    private(set) var failures = 0
    /// Not before this, after a failure.
    private(set) var retryAt: Duration?

    /// The store changed.
    mutating func changed() { pending = true }

    /// What to do at `now` (time on any monotonic clock); `.publish` marks a publish started.
    mutating func next(at now: Duration) -> Action {
        guard pending else { return .idle }
        let earliest = max(lastStart.map { $0 + Self.spacing } ?? now, retryAt ?? now)
        guard now >= earliest else { return .wait(earliest - now) }
        pending = false
        startBefore = lastStart
        lastStart = now
        return .publish
    }

    /// The publish started last ended at `now`, with `outcome`.
    mutating func finished(_ outcome: Outcome, at now: Duration) {
        if outcome == .unchanged { lastStart = startBefore }
        guard outcome == .failed else {
            failures = 0
            retryAt = nil
            return
        }
        failures += 1
        pending = true
        retryAt = now + min(Self.longestBackoff, Self.firstBackoff * (1 << min(failures - 1, 10)))
    }
}
