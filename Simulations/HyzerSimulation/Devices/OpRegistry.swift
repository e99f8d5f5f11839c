import Foundation
import HyzerDomain
import HyzerKit

/// Every op any device created and acknowledged, as its author wrote it: the ground truth the
/// safety checks and the oracle compare replicas against.
///
/// It is filled by reading each device's own new ops back from its store right after the
/// command that wrote them, so it also proves each acknowledged op was committed.
///
/// An author's log is one branch, unless a store of it was restored from a backup or copied
/// and wrote on: then each copy that wrote past the point where the branches part adds a
/// branch (every branch is a whole log from op 1; branches share the ops below their fork).
/// Each device has a cursor: the author it writes as, the branch its store follows, and how
/// many ops of it the store acknowledged. A restore sets the cursor back (a user's deliberate
/// act: the store's newer ops are gone from it), and a copy starts with the source's cursor.
struct OpRegistry {
    /// One created op.
    struct Entry {
        let sequence: UInt64
        let hash: [UInt8]
        let clock: HLCTimestamp
        let payload: OpPayload?
        /// The id of the entity it created (a player, course, round, score event).
        let entityID: UUID
    }

    /// Where a device's store stands in its author's log.
    struct Cursor: Equatable {
        var author: AuthorID
        var branch: Int
        var count: Int
    }

    private var branches: [AuthorID: [[Entry]]] = [:]
    private(set) var cursors: [Int: Cursor] = [:]
    private(set) var total = 0
    /// Authors a store of which was restored from a backup or copied.
    private(set) var disturbed: Set<AuthorID> = []

    /// How many ops `author` created on its longest branch.
    func count(_ author: AuthorID) -> Int { branches[author]?.map(\.count).max() ?? 0 }

    /// Whether `author` is one of the devices' keys.
    func knows(_ author: AuthorID) -> Bool { branches[author] != nil }

    /// The vector a replica holding the longest branch of every author has.
    var vector: VersionVector {
        var vector = VersionVector()
        for author in authors { vector[author] = UInt64(count(author)) }
        return vector
    }

    /// Authors in byte order.
    var authors: [AuthorID] { branches.keys.sorted() }

    /// The op `author` created with `sequence` on its first branch.
    func entry(_ author: AuthorID, _ sequence: UInt64) -> Entry? {
        guard let entries = branches[author]?.first, sequence >= 1, sequence <= UInt64(entries.count) else { return nil }
        return entries[Int(sequence - 1)]
    }

    /// Whether `author` created an op with `sequence` and `hash` on any branch.
    func created(_ author: AuthorID, _ sequence: UInt64, hash: [UInt8]) -> Bool {
        branch(of: author, containing: sequence, hashPrefix: hash) != nil
    }

    /// The branch of `author` whose op `sequence` has a hash starting with `hashPrefix`.
    func branch(of author: AuthorID, containing sequence: UInt64, hashPrefix: [UInt8]) -> Int? {
        guard sequence >= 1, !hashPrefix.isEmpty else { return nil }
        return branches[author]?.firstIndex { entries in
            sequence <= UInt64(entries.count) && entries[Int(sequence - 1)].hash.starts(with: hashPrefix)
        }
    }

    /// How many branches `author`'s log has.
    func branchCount(_ author: AuthorID) -> Int { branches[author]?.count ?? 0 }

    /// The lowest sequence at which two branches of `author` differ, if any do.
    func forkPoint(_ author: AuthorID) -> UInt64? {
        guard let all = branches[author], all.count > 1 else { return nil }
        var lowest: UInt64?
        for other in all.dropFirst() {
            let shared = zip(all[0], other).prefix { $0.hash == $1.hash }.count
            lowest = min(lowest ?? .max, UInt64(shared + 1))
        }
        return lowest
    }

    /// Reads the ops `replica`, the store of device `device`, created since the last capture
    /// and records them. Ops of its own key that it received rather than wrote (its newer ops
    /// coming back to a restored store) move its cursor along. Throws a description when the
    /// replica lost or rewrote an op it had acknowledged.
    mutating func capture(_ replica: Replica, device: Int) throws -> [Entry] {
        let author = replica.author
        if cursors[device]?.author != author {
            if branches[author] == nil { branches[author] = [[]] }
            cursors[device] = Cursor(author: author, branch: 0, count: 0)
        }
        var cursor = cursors[device]!
        let vector = try replica.versionVector()
        let held = vector[author]
        guard held >= UInt64(cursor.count) else {
            throw RegistryProblem("\(author.short) holds \(held) of its own ops, but had acknowledged \(cursor.count)")
        }
        guard held > UInt64(cursor.count) else { return [] }
        var above = vector
        above[author] = UInt64(cursor.count)
        var started = false
        var expected: UInt64 = 1
        var chain = SignedOp.noPreviousHash
        var added: [Entry] = []
        // The held log in order (a frozen author's comes from op 1, then its fork's proof).
        for segment in try replica.delta(above: above) where segment.author == author {
            if !started {
                started = true
                expected = segment.firstSequence
                chain = segment.previousHash
                if expected > 1 {
                    let known = branches[author]![cursor.branch]
                    guard expected - 1 == UInt64(cursor.count), known[Int(expected - 2)].hash == chain else {
                        throw RegistryProblem(
                            "\(author.short)'s op \(expected) does not follow the op it acknowledged as \(expected - 1)")
                    }
                }
            } else if segment.firstSequence != expected {
                break  // the proof of a fork: another branch
            }
            for tail in segment.tails {
                let op = SignedOp(author: author, sequence: expected, previousHash: chain, tail: tail, signature: nil)
                chain = op.hash
                expected += 1
                guard op.sequence > UInt64(cursor.count) else { continue }
                if let known = branch(of: author, containing: op.sequence, hashPrefix: op.hash) {
                    cursor.branch = known  // received, not written: its own ops coming back
                } else {
                    let entry = Entry(
                        sequence: op.sequence, hash: op.hash, clock: op.clock ?? .zero, payload: try? op.payload().get(),
                        entityID: op.entityID)
                    var log = branches[author]![cursor.branch]
                    if log.count == cursor.count {
                        branches[author]![cursor.branch].append(entry)
                    } else {
                        log = Array(log.prefix(cursor.count)) + [entry]
                        branches[author]!.append(log)
                        cursor.branch = branches[author]!.count - 1
                    }
                    added.append(entry)
                    total += 1
                }
                cursor.count = Int(op.sequence)
            }
        }
        guard UInt64(cursor.count) == held else {
            throw RegistryProblem("\(author.short)'s delta lacks its own new ops")
        }
        cursors[device] = cursor
        return added
    }

    /// Records the ops of a planted identity (docs/security.md, "Membership"), which no device
    /// writes: a hostile member made them with a fresh key. One log, from op 1.
    mutating func recordPlanted(_ ops: [SignedOp]) {
        guard let author = ops.first?.author, branches[author] == nil else { return }
        branches[author] = [
            ops.map { op in
                Entry(
                    sequence: op.sequence, hash: op.hash, clock: op.clock ?? .zero, payload: try? op.payload().get(), entityID: op.entityID)
            }
        ]
        total += ops.count
    }

    /// The store of `device` was replaced by an older copy whose cursor was `cursor`.
    mutating func restore(_ device: Int, to cursor: Cursor) {
        cursors[device] = cursor
        disturbed.insert(cursor.author)
    }

    /// Device `copy` now runs a copy of `source`'s store.
    mutating func copy(_ source: Int, to copy: Int) {
        guard let cursor = cursors[source] else { return }
        cursors[copy] = cursor
        disturbed.insert(cursor.author)
    }

    /// The ops a replica holding `vector` holds: each author's log cut at its entry, on the
    /// branch `heads` names (by the hash of that branch's op at the entry) or else the first.
    func restricted(to vector: VersionVector, heads: [AuthorID: [UInt8]] = [:]) -> OpRegistry {
        var restricted = OpRegistry()
        for (author, all) in branches {
            let count = vector[author]
            let chosen = heads[author].flatMap { branch(of: author, containing: count, hashPrefix: $0) } ?? 0
            let kept = Array(all[chosen].prefix(Int(min(UInt64(all[chosen].count), count))))
            restricted.branches[author] = [kept]
            restricted.total += kept.count
        }
        return restricted
    }

    /// Every created op with its author, authors in byte order: each branch's ops, those a
    /// branch shares with an earlier one once.
    var all: [(author: AuthorID, entry: Entry)] {
        authors.flatMap { author in
            let all = branches[author]!
            return all.enumerated().flatMap { index, log in
                let shared = all.prefix(index).map { earlier in zip(earlier, log).prefix { $0.hash == $1.hash }.count }.max() ?? 0
                return log.dropFirst(shared).map { (author, $0) }
            }
        }
    }
}

/// What `OpRegistry.capture` found wrong.
struct RegistryProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
