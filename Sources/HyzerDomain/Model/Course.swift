import Foundation

/// A course and its holes. Name, hole count, each hole's par and the tombstone are
/// last-writer-wins registers; pars are keyed by (course id, hole number).
public struct Course: Hashable, Sendable {
    public let id: UUID
    public var name: String
    /// Par of hole `n` at index `n - 1`; `pars.count` is the hole count.
    public var pars: [Int]
    public let isSeeded: Bool
    public var deleted: Bool
    public let createdAt: HLCTimestamp

    public init(id: UUID, name: String, pars: [Int], isSeeded: Bool, deleted: Bool, createdAt: HLCTimestamp) {
        self.id = id
        self.name = name
        self.pars = pars
        self.isSeeded = isSeeded
        self.deleted = deleted
        self.createdAt = createdAt
    }

    public var holeCount: Int { pars.count }
    public var totalPar: Int { pars.reduce(0, +) }
}
