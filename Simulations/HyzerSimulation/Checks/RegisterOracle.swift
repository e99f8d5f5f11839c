import Foundation
import HyzerDomain
import HyzerKit

/// What every last-writer-wins register must hold, derived from the created ops: the write
/// with the greatest `(clock, author, sequence)` wins, compared as bytes, whatever order the
/// writes arrived in (docs/replication.md, "State").
struct RegisterOracle {
    private struct Stamp: Comparable {
        let clock: HLCTimestamp
        let author: AuthorID
        let sequence: UInt64

        static func < (lhs: Stamp, rhs: Stamp) -> Bool {
            if lhs.clock != rhs.clock { return lhs.clock < rhs.clock }
            if lhs.author != rhs.author { return lhs.author < rhs.author }
            return lhs.sequence < rhs.sequence
        }
    }

    private var names: [UUID: (String, Stamp)] = [:]
    private var pars: [UUID: [Int: (Int, Stamp)]] = [:]
    private var deleted: Set<UUID> = []

    init(_ registry: OpRegistry) {
        for (author, entry) in registry.all {
            let stamp = Stamp(clock: entry.clock, author: author, sequence: entry.sequence)
            switch entry.payload {
            case .courseCreated(let name, let coursePars):
                write(name: name, entity: entry.entityID, stamp)
                for (index, par) in coursePars.enumerated() { write(par: par, hole: index + 1, course: entry.entityID, stamp) }
            case .courseRenamed(let course, let name), .playerRenamed(let course, let name):
                write(name: name, entity: course, stamp)
            case .playerCreated(let name):
                write(name: name, entity: entry.entityID, stamp)
            case .holeParSet(let course, let hole, let par):
                write(par: par, hole: hole, course: course, stamp)
            case .courseDeleted(let course):
                deleted.insert(course)
            default:
                break
            }
        }
    }

    private mutating func write(name: String, entity: UUID, _ stamp: Stamp) {
        if names[entity].map({ $0.1 < stamp }) ?? true { names[entity] = (name, stamp) }
    }

    private mutating func write(par: Int, hole: Int, course: UUID, _ stamp: Stamp) {
        if pars[course]?[hole].map({ $0.1 < stamp }) ?? true { pars[course, default: [:]][hole] = (par, stamp) }
    }

    /// The first course or player whose registers differ from the oracle's, or nil.
    func disagreement(courses: [Course], players: [Player]) -> String? {
        for course in courses {
            let seeded = SeededCourses.all.first { $0.id == course.id }
            let name = names[course.id]?.0 ?? seeded?.name
            if course.name != name {
                return "course \(course.id.lowercased.prefix(8)) is named '\(course.name)', the last writer wrote '\(name ?? "?")'"
            }
            for (index, par) in course.pars.enumerated() {
                let expected = pars[course.id]?[index + 1]?.0 ?? seeded?.pars[index]
                if par != expected {
                    return
                        "course '\(course.name)' hole \(index + 1) has par \(par), the last writer wrote \(expected.map(String.init) ?? "?")"
                }
            }
            if course.deleted != deleted.contains(course.id) { return "course '\(course.name)' deleted=\(course.deleted)" }
        }
        for player in players where player.displayName != names[player.id]?.0 {
            return
                "player \(player.id.lowercased.prefix(8)) is named '\(player.displayName)', the last writer wrote '\(names[player.id]?.0 ?? "?")'"
        }
        return nil
    }
}
