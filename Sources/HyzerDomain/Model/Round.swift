import Foundation

/// A round as its start op fixed it: the course, the organizer, the participants and the par
/// of every hole copied from the course when the round started.
public struct Round: Hashable, Sendable {
    /// The round's id.
    public let id: UUID
    /// The course the round is played on.
    public let courseID: UUID
    /// The course's name when the round started.
    public let courseName: String
    /// The participant who organizes the round: devices owning this player may resolve
    /// discrepancies and finish the round.
    public let organizerID: ParticipantID
    /// In the order the start op lists them.
    public var participants: [Participant]
    /// Par of hole `n` at index `n - 1`.
    public let pars: [Int]
    /// When the round started, by the starting replica's clock.
    public let startedAt: HLCTimestamp
    /// The replica that started the round.
    public let startedBy: AuthorID

    /// A round as its start op fixed it.
    public init(
        id: UUID, courseID: UUID, courseName: String, organizerID: ParticipantID,
        participants: [Participant], pars: [Int], startedAt: HLCTimestamp, startedBy: AuthorID
    ) {
        self.id = id
        self.courseID = courseID
        self.courseName = courseName
        self.organizerID = organizerID
        self.participants = participants
        self.pars = pars
        self.startedAt = startedAt
        self.startedBy = startedBy
    }

    /// The number of holes.
    public var holeCount: Int { pars.count }
    /// The sum of every hole's par.
    public var totalPar: Int { pars.reduce(0, +) }
}
