/// A score written before its round was finished that reached the finishing device after it
/// (docs/rules.md, "Late scores"): it does not count, and every view lists it as late until a
/// device owning the organizer counts it with a resolution.
public struct LateScore: Codable, Hashable, Sendable {
    /// The participant id.
    public var playerID: ParticipantID
    /// The participant's name as the round lists it.
    public var name: String
    /// The hole number, from 1.
    public var hole: Int
    /// The strokes it reports.
    public var strokes: Int
    /// The score event's id (its text: the lowercase UUID).
    public var eventID: ScoreEventID
    /// The authoring device's public key (its text: lowercase hexadecimal).
    public var deviceID: DeviceID
    /// The event's hybrid logical clock reading, `milliseconds.counter`: before the finish's.
    public var createdAt: String
    /// What happened, in one sentence.
    public var reason: String

    /// A late score with every field given; views read `RoundEvaluation.lateScores`.
    public init(
        playerID: ParticipantID, name: String, hole: Int, strokes: Int, eventID: ScoreEventID, deviceID: DeviceID, createdAt: String,
        reason: String
    ) {
        self.playerID = playerID
        self.name = name
        self.hole = hole
        self.strokes = strokes
        self.eventID = eventID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.reason = reason
    }
}

extension RoundEvaluation {
    /// The late events no resolution has counted, each with its participant's name, in the
    /// round's participant order, then hole, then canonical order.
    public var lateScores: [LateScore] {
        let order = Dictionary(participants.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        return lateEvents.enumerated()
            .sorted { left, right in
                let (a, b) = (left.element, right.element)
                let (orderA, orderB) = (order[a.playerID] ?? .max, order[b.playerID] ?? .max)
                if orderA != orderB { return orderA < orderB }
                if a.holeNumber != b.holeNumber { return a.holeNumber < b.holeNumber }
                return left.offset < right.offset
            }
            .map { _, event in
                LateScore(
                    playerID: event.playerID, name: participants.first { $0.id == event.playerID }?.name ?? event.playerID.description,
                    hole: event.holeNumber, strokes: event.strokeCount, eventID: ScoreEventID(event.id),
                    deviceID: event.deviceID, createdAt: event.createdAt.description,
                    reason: IgnoredEvent.Reason.lateForFinish.description)
            }
    }
}
