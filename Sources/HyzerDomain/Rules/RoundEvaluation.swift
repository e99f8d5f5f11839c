import Foundation

/// Everything the scoring rules derive from one round's ops: the valid finish, which score
/// events count, the current score of every hole, the status, the standings, each player's
/// breakdown and the discrepancies (docs/rules.md).
///
/// An evaluation is a pure function of its inputs. It does not depend on the order of `events`
/// or `finishes` — both are sorted first — nor on the local clock, and no dictionary or set
/// iteration order reaches its output, so two replicas holding the same ops derive identical
/// values.
///
/// ## The valid finish
/// Only a finish written by a device that owns the round's organizer counts; the earliest by
/// `(createdAt, deviceID)` is the one. Forced and unforced finishes count alike: the rule that
/// an unforced finish needs every score is enforced by the command line before it writes the
/// op, not here, because a finish that arrives by sync is authentic history either way.
///
/// ## Which events count
/// Among events sharing one id, the one with the smallest `(createdAt, deviceID)` counts and
/// the others are ignored as `duplicateID` (an event that is an exact copy of another is the
/// same op seen twice and is dropped silently). An event is then ignored when it names another
/// round, a hole outside `1...holeCount`, strokes outside `1...10`, a player who is not a
/// participant, is stamped before the round's start, or came
/// after the valid finish — except a resolution (an event that supersedes something, from a
/// device owning the organizer), which counts even after the finish. A finish that carries the
/// finishing device's vector (op kind 16) cuts off the events that vector does not hold, so a
/// backdated stamp cannot slip a score in; an older finish cuts off by stamp. Ignored events
/// are listed in `ignoredEvents`.
///
/// ## Late scores
/// An event the finishing device's vector does not hold but that is stamped before the finish
/// was written before the finish and reached the finisher after it: it does not count, and it is listed in `lateEvents` until a
/// resolution from a device owning the organizer names it in its `supersedes` (`resolve
/// --late`), which counts its strokes (docs/rules.md, "Late scores").
///
/// ## Supersession
/// A valid event B supersedes a valid event A listed in `B.supersedes` when both score the same
/// (player, hole) and B comes from A's device (a correction) or from a device owning the
/// organizer (a resolution). Any other supersession is ignored, and A competes as a leaf. The
/// time of either event plays no part: the supersession graph, not the clocks, decides.
public struct RoundEvaluation: Sendable, Equatable {
    /// The round evaluated.
    public let round: Round
    /// The round's participants in start-op order; a participant id listed twice keeps only its
    /// first entry.
    public let participants: [Participant]
    /// The valid finish, if any: the earliest (by `createdAt`, then device id bytes) finish of
    /// this round written by a device that owns the organizer.
    public let finish: RoundFinish?
    /// The events that count, sorted by `(createdAt, id)`.
    public let validEvents: [ScoreEvent]
    /// The events every view ignores, with the first rule each breaks, sorted by
    /// `(createdAt, id)` and then every other field.
    public let ignoredEvents: [IgnoredEvent]
    /// Where the round is: completed with a valid finish, else awaiting finalization when
    /// every participant has an undisputed score on every hole, else active.
    public let status: RoundStatus
    /// The leaderboard (see `StandingsEntry`).
    public let standings: [StandingsEntry]
    /// One entry per disputed (player, hole), by participant order in the round, then hole.
    public let discrepancies: [Discrepancy]
    /// Events ignored as `lateForFinish` that no resolution has counted yet, in canonical order:
    /// every view lists them as late, not counted.
    public let lateEvents: [ScoreEvent]

    /// Valid events whose `supersedes` list names an event their supersession does not count
    /// for; they compete as leaves and `verify` lists them.
    public let eventsWithIgnoredSupersessions: [ScoreEvent]

    /// The current score of each (player, hole) that has leaves. Only looked up, never iterated.
    private let scores: [HoleKey: HoleScore]

    /// Evaluates `round` from its score events and finish ops. `ownership` says which devices
    /// own which players; it decides the organizer's devices. `merge` picks the current scores
    /// (only the simulator's own tests pass another rule than the shipped one).
    public init(
        round: Round, events: [ScoreEvent], finishes: [RoundFinish], ownership: Ownership, merge: MergeRule = .supersession
    ) {
        let participants = Self.distinctParticipants(round.participants)
        let isOrganizerDevice = { (device: AuthorID) in ownership.device(device, owns: round.organizerID) }

        let finish =
            finishes
            .filter { $0.roundID == round.id && isOrganizerDevice($0.deviceID) }
            .min(by: CanonicalOrder.precedes)

        let (valid, ignored) = Self.validate(
            events, round: round, participantIDs: Set(participants.map(\.id)), finish: finish,
            isOrganizerDevice: isOrganizerDevice
        )
        let scores = Self.currentScores(valid, merge: merge, isOrganizerDevice: isOrganizerDevice)

        self.round = round
        self.participants = participants
        self.finish = finish
        self.validEvents = valid
        self.ignoredEvents = ignored
        let late = ignored.filter { $0.reason == .lateForFinish }.map(\.event)
        let counted = Self.countedLateEvents(late, valid: valid, isOrganizerDevice: isOrganizerDevice)
        self.lateEvents = late.filter { !counted.contains($0.id) }
        self.eventsWithIgnoredSupersessions = Self.ignoredSupersessions(
            valid, countedLate: counted, isOrganizerDevice: isOrganizerDevice)
        self.scores = scores
        self.standings = StandingsEntry.ranked(
            participants.map { Self.unrankedEntry(for: $0, round: round, scores: scores) }
        )
        self.discrepancies = Self.discrepancies(participants: participants, round: round, scores: scores)
        self.status = Self.status(finish: finish, participants: participants, round: round, scores: scores)
    }

    /// The current score of `player` on `hole`; `.unscored` for a hole or player the round
    /// does not have.
    public func score(player: ParticipantID, hole: Int) -> HoleScore {
        scores[HoleKey(player: player, hole: hole)] ?? .unscored
    }

    /// The hole-by-hole breakdown of `player`, or `nil` when the player is not a participant.
    public func breakdown(player: ParticipantID) -> Breakdown? {
        guard let participant = participants.first(where: { $0.id == player }) else { return nil }
        let holes = round.pars.enumerated().map { index, par in
            BreakdownHole(hole: index + 1, par: par, score: score(player: player, hole: index + 1))
        }
        return Breakdown(
            round: RoundID(round.id), playerID: participant.id, name: participant.name, holes: holes
        )
    }
}

extension RoundEvaluation {
    /// A (player, hole) pair, the key of a current score.
    fileprivate struct HoleKey: Hashable, Sendable {
        var player: ParticipantID
        var hole: Int
    }

    private static func distinctParticipants(_ participants: [Participant]) -> [Participant] {
        var seen: Set<ParticipantID> = []
        return participants.filter { seen.insert($0.id).inserted }
    }

    /// Splits `events` into those that count and those ignored, both in canonical order.
    /// Among events sharing an id, the first in canonical order — the smallest
    /// `(createdAt, deviceID)` — is the one; exact copies of an event are dropped silently.
    private static func validate(
        _ events: [ScoreEvent], round: Round, participantIDs: Set<ParticipantID>, finish: RoundFinish?,
        isOrganizerDevice: (AuthorID) -> Bool
    ) -> (valid: [ScoreEvent], ignored: [IgnoredEvent]) {
        var seenIDs: Set<UUID> = []
        var previous: ScoreEvent?
        var valid: [ScoreEvent] = []
        var ignored: [IgnoredEvent] = []
        for event in events.sorted(by: CanonicalOrder.precedes) {
            defer { previous = event }
            if event == previous { continue }
            guard seenIDs.insert(event.id).inserted else {
                ignored.append(IgnoredEvent(event: event, reason: .duplicateID))
                continue
            }
            let isResolution = !event.supersedes.isEmpty && isOrganizerDevice(event.deviceID)
            if let reason = reasonToIgnore(
                event, round: round, participantIDs: participantIDs, finish: finish, isResolution: isResolution
            ) {
                ignored.append(IgnoredEvent(event: event, reason: reason))
            } else {
                valid.append(event)
            }
        }
        return (valid, ignored)
    }

    /// The current score of every (player, hole) that has valid events: the leaves `merge`
    /// leaves once valid supersessions — corrections from the same device, resolutions from a
    /// device owning the organizer, within one (player, hole) — are applied.
    private static func currentScores(
        _ valid: [ScoreEvent], merge: MergeRule, isOrganizerDevice: (AuthorID) -> Bool
    ) -> [HoleKey: HoleScore] {
        var validByID: [UUID: ScoreEvent] = [:]
        for event in valid { validByID[event.id] = event }
        var leaves: [HoleKey: [ScoreEvent]] = [:]
        for event in merge.leaves(valid, { supersessionCounts($0, $1, validByID, isOrganizerDevice) }) {
            leaves[HoleKey(player: event.playerID, hole: event.holeNumber), default: []].append(event)
        }
        return leaves.mapValues(HoleScore.init(leaves:))
    }

    /// Whether `event` really supersedes `supersededID`: both valid, same (player, hole), and
    /// from the same device (a correction) or from a device owning the organizer (a resolution).
    private static func supersessionCounts(
        _ event: ScoreEvent, _ supersededID: UUID, _ validByID: [UUID: ScoreEvent], _ isOrganizerDevice: (AuthorID) -> Bool
    ) -> Bool {
        guard supersededID != event.id, let target = validByID[supersededID] else { return false }
        return target.playerID == event.playerID && target.holeNumber == event.holeNumber
            && (target.deviceID == event.deviceID || isOrganizerDevice(event.deviceID))
    }

    /// Valid events that list a superseded event their supersession does not count for (a
    /// device "correcting" another device's score, say): they still count as scores, and
    /// `verify` lists them. In canonical order.
    /// A resolution naming a late event it counts (`countedLate`) lists nothing it may not.
    private static func ignoredSupersessions(
        _ valid: [ScoreEvent], countedLate: Set<UUID>, isOrganizerDevice: (AuthorID) -> Bool
    ) -> [ScoreEvent] {
        var validByID: [UUID: ScoreEvent] = [:]
        for event in valid { validByID[event.id] = event }
        return valid.filter { event in
            event.supersedes.contains { id in
                !supersessionCounts(event, id, validByID, isOrganizerDevice)
                    && !(countedLate.contains(id) && isOrganizerDevice(event.deviceID))
            }
        }
    }

    /// The late events a valid resolution (from a device owning the organizer, of the same
    /// player and hole) names in its `supersedes`: the organizer counted them.
    private static func countedLateEvents(
        _ late: [ScoreEvent], valid: [ScoreEvent], isOrganizerDevice: (AuthorID) -> Bool
    ) -> Set<UUID> {
        var lateByID: [UUID: ScoreEvent] = [:]
        for event in late { lateByID[event.id] = event }
        var counted: Set<UUID> = []
        for event in valid where isOrganizerDevice(event.deviceID) {
            for id in event.supersedes {
                guard let target = lateByID[id], target.playerID == event.playerID, target.holeNumber == event.holeNumber else {
                    continue
                }
                counted.insert(id)
            }
        }
        return counted
    }

    /// The first rule `event` breaks, or `nil` when it counts.
    private static func reasonToIgnore(
        _ event: ScoreEvent, round: Round, participantIDs: Set<ParticipantID>, finish: RoundFinish?,
        isResolution: Bool
    ) -> IgnoredEvent.Reason? {
        if event.roundID != round.id { return .wrongRound }
        if event.holeNumber < 1 || event.holeNumber > round.holeCount {
            return .holeOutOfRange(hole: event.holeNumber, holeCount: round.holeCount)
        }
        if !ScoreEvent.strokeRange.contains(event.strokeCount) {
            return .strokesOutOfRange(strokes: event.strokeCount)
        }
        if !participantIDs.contains(event.playerID) { return .notAParticipant(player: event.playerID) }
        if event.createdAt < round.startedAt { return .beforeRoundStart }
        if let finish, !isResolution {
            if let covered = finish.covered {
                if event.sequence > covered[event.deviceID] ?? 0 {
                    return event.createdAt < finish.createdAt ? .lateForFinish : .afterFinish
                }
            } else if event.createdAt > finish.createdAt {
                return .afterFinish
            }
        }
        return nil
    }

    /// A participant's totals, before ranking (position 0).
    private static func unrankedEntry(
        for participant: Participant, round: Round, scores: [HoleKey: HoleScore]
    ) -> StandingsEntry {
        var totalStrokes = 0
        var holesPlayed = 0
        var relativeToPar = 0
        var disputedHoles = 0
        for (index, par) in round.pars.enumerated() {
            let score = scores[HoleKey(player: participant.id, hole: index + 1)] ?? .unscored
            guard let strokes = score.strokes else { continue }
            totalStrokes += strokes
            holesPlayed += 1
            relativeToPar += strokes - par
            if score.isDisputed { disputedHoles += 1 }
        }
        return StandingsEntry(
            position: 0, playerID: participant.id, name: participant.name, totalStrokes: totalStrokes,
            holesPlayed: holesPlayed, relativeToPar: relativeToPar,
            formatted: ScoreFormatting.formatted(relativeToPar), disputedHoles: disputedHoles
        )
    }

    private static func discrepancies(
        participants: [Participant], round: Round, scores: [HoleKey: HoleScore]
    ) -> [Discrepancy] {
        var discrepancies: [Discrepancy] = []
        for participant in participants {
            for hole in stride(from: 1, through: round.holeCount, by: 1) {
                guard case .disputed(let leaves, _) = scores[HoleKey(player: participant.id, hole: hole)] else {
                    continue
                }
                discrepancies.append(
                    Discrepancy(
                        playerID: participant.id, name: participant.name, hole: hole,
                        leaves: leaves.map(DiscrepancyLeaf.init(event:))
                    )
                )
            }
        }
        return discrepancies
    }

    private static func status(
        finish: RoundFinish?, participants: [Participant], round: Round, scores: [HoleKey: HoleScore]
    ) -> RoundStatus {
        if finish != nil { return .completed }
        let everyHoleAgreed = participants.allSatisfy { participant in
            stride(from: 1, through: round.holeCount, by: 1).allSatisfy { hole in
                let score = scores[HoleKey(player: participant.id, hole: hole)] ?? .unscored
                return score.strokes != nil && !score.isDisputed
            }
        }
        return everyHoleAgreed ? .awaitingFinalization : .active
    }
}
