import Foundation
import HyzerDomain
import HyzerKit

/// Changing the players and courses every round draws on, by typed id (docs/domain.md). Each is
/// one transaction of `Replica`'s; an id the store does not hold is refused with
/// `ReplicaError.unknown`, never taken for a name.
extension HyzerEngine {
    /// Gives `player` a new display name (1 to 64 characters, no control characters).
    public func renamePlayer(_ player: PlayerID, to name: String) async throws {
        try await perform(.write) { replica in
            try Self.requirePlayers([player], replica)
            try replica.renamePlayer(player.description, to: name)
        }
    }

    /// Adds `alias`, another name a quick card accepts for `player` (a nickname). Throws
    /// `CardError.aliasTaken` when it is another player's name or alias.
    public func addAlias(_ alias: String, for player: PlayerID) async throws {
        try await perform(.write) { replica in
            try Self.requirePlayers([player], replica)
            try replica.addAlias(player: player.description, alias: alias)
        }
    }

    /// Sets the par of `hole` of `course`; past rounds keep the pars they copied.
    public func setPar(_ par: Int, hole: Int, of course: CourseID) async throws {
        try await perform(.write) { replica in
            try Self.requireCourse(course, replica)
            try replica.setPar(course: course.description, hole: hole, par: par)
        }
    }

    /// Sets how many holes `course` has (new holes are par 3); past rounds keep theirs.
    public func setHoleCount(_ holes: Int, of course: CourseID) async throws {
        try await perform(.write) { replica in
            try Self.requireCourse(course, replica)
            try replica.setHoleCount(course: course.description, holes: holes)
        }
    }

    /// Renames `course`.
    public func renameCourse(_ course: CourseID, to name: String) async throws {
        try await perform(.write) { replica in
            try Self.requireCourse(course, replica)
            try replica.renameCourse(course.description, to: name)
        }
    }

    /// Deletes `course`: no new round starts on it; past rounds keep their copy of it.
    public func deleteCourse(_ course: CourseID) async throws {
        try await perform(.write) { replica in
            try Self.requireCourse(course, replica)
            try replica.deleteCourse(course.description)
        }
    }

    /// Throws `ReplicaError.unknown` unless the store holds `course` (deleted or not).
    static func requireCourse(_ course: CourseID, _ replica: Replica) throws {
        guard try replica.course(course.uuid) != nil else { throw ReplicaError.unknown(kind: "course", text: course.description) }
    }
}
