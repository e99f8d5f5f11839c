/// A disputed (round, player, hole): its leaves disagree (docs/rules.md, "Discrepancies"). Derived,
/// never stored; a resolution from the organizer's device that supersedes every leaf with one
/// stroke count makes it disappear.
public struct Discrepancy: Codable, Hashable, Sendable {
    /// The participant id.
    public var playerID: ParticipantID
    /// The participant's name as the round lists it.
    public var name: String
    /// The hole number, from 1.
    public var hole: Int
    /// Every leaf, sorted by `(createdAt, id)`; the first is the one standings count.
    public var leaves: [DiscrepancyLeaf]

    /// A discrepancy with every field given; views read `RoundEvaluation.discrepancies`.
    public init(playerID: ParticipantID, name: String, hole: Int, leaves: [DiscrepancyLeaf]) {
        self.playerID = playerID
        self.name = name
        self.hole = hole
        self.leaves = leaves
    }
}

/// One competing score of a `Discrepancy`: who reported what, from which device, when.
public struct DiscrepancyLeaf: Codable, Hashable, Sendable {
    /// The score event (its JSON: the lowercase UUID).
    public var eventID: ScoreEventID
    /// The stroke count this leaf reports.
    public var strokes: Int
    /// The participant who reported it, or `nil` when the reporting device has no owner
    /// (written as JSON `null`).
    public var reportedByPlayerID: ParticipantID?
    /// The authoring device (its JSON: its public key, in lowercase hexadecimal).
    public var deviceID: DeviceID
    /// The event's hybrid logical clock reading, `milliseconds.counter`.
    public var createdAt: String

    /// A leaf with every field given.
    public init(eventID: ScoreEventID, strokes: Int, reportedByPlayerID: ParticipantID?, deviceID: DeviceID, createdAt: String) {
        self.eventID = eventID
        self.strokes = strokes
        self.reportedByPlayerID = reportedByPlayerID
        self.deviceID = deviceID
        self.createdAt = createdAt
    }

    /// The leaf as a score event reports it.
    public init(event: ScoreEvent) {
        self.init(
            eventID: ScoreEventID(event.id), strokes: event.strokeCount,
            reportedByPlayerID: event.reportedByPlayerID, deviceID: event.deviceID,
            createdAt: event.createdAt.description
        )
    }

    enum CodingKeys: String, CodingKey {
        case eventID, strokes, reportedByPlayerID, deviceID, createdAt
    }

    /// Writes every key, `null` for a missing reporting player.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(strokes, forKey: .strokes)
        try container.encode(reportedByPlayerID, forKey: .reportedByPlayerID)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(createdAt, forKey: .createdAt)
    }
}
