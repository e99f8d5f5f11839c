import Foundation

/// A course and its holes. Name, hole count, each hole's par and the tombstone are
/// last-writer-wins registers; pars are keyed by (course id, hole number).
public struct Course: Hashable, Sendable {
    /// The course's id: derived from its creating op's hash, or the UUIDv5 of its name for a seeded course.
    public let id: UUID
    /// The course's current name.
    public var name: String
    /// Par of hole `n` at index `n - 1`; `pars.count` is the hole count.
    public var pars: [Int]
    /// Whether the course is one of ``SeededCourses``, which every store holds from its creation, without an op.
    public let isSeeded: Bool
    /// Whether the course was deleted: deleted courses start no new rounds.
    public var deleted: Bool
    /// When the course was created, by the creating replica's clock.
    public let createdAt: HLCTimestamp

    /// A course from its registers' current values.
    public init(id: UUID, name: String, pars: [Int], isSeeded: Bool, deleted: Bool, createdAt: HLCTimestamp) {
        self.id = id
        self.name = name
        self.pars = pars
        self.isSeeded = isSeeded
        self.deleted = deleted
        self.createdAt = createdAt
    }

    /// The number of holes.
    public var holeCount: Int { pars.count }
    /// The sum of every hole's par.
    public var totalPar: Int { pars.reduce(0, +) }
}
