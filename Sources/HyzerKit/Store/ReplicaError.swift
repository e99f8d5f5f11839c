import Foundation
import HyzerDomain

/// Everything a replica can refuse, each with a sentence that says what was wrong and what
/// to do (docs/architecture.md, "Errors"). A refused command changes nothing.
public enum ReplicaError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// Creating a store in a directory that already holds one.
    case storeExists(path: String)
    /// A directory with no store in it.
    case notAStore(path: String)
    /// The database file is damaged or is not a SQLite database.
    case corruptStore(path: String, detail: String)
    /// The secret key file is missing, unreadable or does not match the database.
    case badKeyFile(path: String, detail: String)
    /// SQLite failed (a full disk, a read-only file system).
    case storage(detail: String)
    /// Another process held the store's write lock for longer than a writer waits (about five
    /// seconds); `holder` names it when `/proc/locks` does.
    case storeBusy(holder: StoreHolder?)
    /// No entity of that kind matches the text.
    case unknown(kind: String, text: String)
    /// The text matches several entities of that kind.
    case ambiguous(kind: String, text: String, matches: [String])
    /// A hole number outside the round or course.
    case holeOutOfRange(hole: Int, holeCount: Int)
    /// Strokes outside 1...10.
    case strokesOutOfRange(Int)
    /// A player who is not one of the round's participants.
    case notAParticipant(player: String, round: String)
    /// A command that needs an active round on a completed one.
    case roundCompleted(round: String)
    /// Finishing a round that still misses scores or has disputes, without forcing the finish.
    case roundNotReady(round: String, missingScores: Int, disputedHoles: Int)
    /// Correcting an event that another device recorded.
    case notYourEvent(event: String, device: String)
    /// A command only a device owning the round's organizer may run.
    case notOrganizerDevice(round: String, organizer: String)
    /// A command that needs a device owning `player`.
    case notOwner(player: String)
    /// The course was deleted.
    case courseDeleted(name: String)
    /// Another copy of this store (restored from a backup, or copied) wrote ops with this
    /// device's key, or this key's log forked: writing on would fork it (again).
    case writtenElsewhere(author: String, forkedAt: UInt64?)
    /// The group's organizer removed this device: nothing it writes counts any more.
    case removedFromGroup(through: UInt64)
    /// A command only the group's organizer may run.
    case notGroupOrganizer

    /// The message, the same as ``description``.
    public var errorDescription: String? { description }

    /// One sentence that says what was wrong and what to do, in words for any app: it names no
    /// command or flag of the command line (which words these errors itself).
    public var description: String {
        switch self {
        case .storeExists(let path):
            "\(path) already holds a store; choose another directory, or open the existing store"
        case .notAStore(let path):
            "\(path) is not a store; create one there first"
        case .corruptStore(let path, let detail):
            "the store at \(path) is damaged (\(detail)); restore it from a backup or sync a new replica from a peer"
        case .badKeyFile(let path, let detail):
            "the replica's secret key at \(path) is unusable (\(detail)); restore the store directory from a backup"
        case .storage(let detail):
            "the store could not be written or read (\(detail)); check free disk space and permissions, then retry"
        case .storeBusy(let holder):
            "the store is busy: another process holds it\(holder.map { " (\($0))" } ?? ""); wait for it to finish or stop it"
        case .unknown(let kind, let text):
            "no \(kind) matches '\(text)'"
        case .ambiguous(let kind, let text, let matches):
            "'\(text)' matches several \(kind)s (\(matches.joined(separator: ", "))); use a longer id prefix"
        case .holeOutOfRange(let hole, let holeCount):
            "hole \(hole) does not exist: this course has holes 1 to \(holeCount)"
        case .strokesOutOfRange(let strokes):
            "\(strokes) strokes is impossible: a hole's score is 1 to 10 strokes"
        case .notAParticipant(let player, let round):
            "\(player) is not playing round \(round); score one of its participants"
        case .roundCompleted(let round):
            "round \(round) is completed; scores can no longer change (the organizer may still resolve discrepancies)"
        case .roundNotReady(let round, let missing, let disputed):
            "round \(round) has \(missing) missing scores and \(disputed) disputed holes; score and resolve them, or force the finish"
        case .notYourEvent(let event, let device):
            "event \(event) was recorded by device \(device); only that device can correct it (ask the organizer to resolve instead)"
        case .notOrganizerDevice(let round, let organizer):
            "only a device owning the organizer \(organizer) may do this for round \(round); run it there, or link this device first"
        case .notOwner(let player):
            "this device does not own \(player); run the command on a device that does"
        case .courseDeleted(let name):
            "course \(name) was deleted; choose another course"
        case .writtenElsewhere(let author, let forkedAt):
            "another copy of this store (restored from a backup, or copied) writes with this device's key \(author)"
                + (forkedAt.map { " and its log forked at op \($0)" } ?? "")
                + "; this copy no longer writes. Continue under a new device key linked to the same owner"
        case .removedFromGroup(let through):
            "this device was removed from its group by the organizer (its ops up to \(through) still count); it can no longer write. Ask a member for a new invite and join with a new store"
        case .notGroupOrganizer:
            "only the group's organizer (the device that created the group) may remove a member or rekey the group; run it there (a group created before groups had organizers has none: create a new one)"
        }
    }
}
