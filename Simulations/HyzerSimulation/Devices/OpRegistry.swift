import Foundation
import HyzerDomain
import HyzerKit

/// Every op any device created and acknowledged, as its author wrote it: the ground truth the
/// safety checks and the oracle compare replicas against.
///
/// It is filled by reading each device's own new ops back from its store right after the
/// command that wrote them, so it also proves each acknowledged op was committed.
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

    private(set) var logs: [AuthorID: [Entry]] = [:]
    private(set) var total = 0

    /// How many ops `author` created.
    func count(_ author: AuthorID) -> Int { logs[author]?.count ?? 0 }

    /// The vector a replica holding every created op has.
    var vector: VersionVector {
        var vector = VersionVector()
        for (author, entries) in logs.sorted(by: { $0.key < $1.key }) { vector[author] = UInt64(entries.count) }
        return vector
    }

    /// Authors in byte order.
    var authors: [AuthorID] { logs.keys.sorted() }

    /// The op `author` created with `sequence`.
    func entry(_ author: AuthorID, _ sequence: UInt64) -> Entry? {
        guard let entries = logs[author], sequence >= 1, sequence <= UInt64(entries.count) else { return nil }
        return entries[Int(sequence - 1)]
    }

    /// Reads the ops `replica` created since the last capture and records them. Throws a
    /// description when the replica lost or rewrote an op it had acknowledged.
    mutating func capture(_ replica: Replica) throws -> [Entry] {
        let author = replica.author
        let known = count(author)
        let vector = try replica.versionVector()
        guard vector[author] >= UInt64(known) else {
            throw RegistryProblem("\(author.short) holds \(vector[author]) of its own ops, but had acknowledged \(known)")
        }
        guard vector[author] > UInt64(known) else { return [] }
        var above = vector
        above[author] = UInt64(known)
        let segments = try replica.delta(above: above).filter { $0.author == author }
        guard let first = segments.first else {
            throw RegistryProblem("\(author.short)'s delta lacks its own new ops")
        }
        let previous = logs[author]?.last?.hash ?? SignedOp.noPreviousHash
        guard first.previousHash == previous else {
            throw RegistryProblem("\(author.short)'s op \(known + 1) does not follow the op it acknowledged as \(known)")
        }
        var chain = previous
        var added: [Entry] = []
        for (offset, tail) in segments.flatMap(\.tails).enumerated() {
            let op = SignedOp(author: author, sequence: UInt64(known + offset + 1), previousHash: chain, tail: tail, signature: nil)
            chain = op.hash
            let entry = Entry(
                sequence: op.sequence, hash: op.hash, clock: op.clock ?? .zero, payload: try? op.payload().get(),
                entityID: op.entityID)
            added.append(entry)
        }
        logs[author, default: []] += added
        total += added.count
        return added
    }

    /// The ops a replica holding `vector` holds: each author's log cut at its entry.
    func restricted(to vector: VersionVector) -> OpRegistry {
        var restricted = OpRegistry()
        for (author, entries) in logs {
            let kept = Array(entries.prefix(Int(min(UInt64(entries.count), vector[author]))))
            restricted.logs[author] = kept
            restricted.total += kept.count
        }
        return restricted
    }

    /// Every created op with its author, authors in byte order.
    var all: [(author: AuthorID, entry: Entry)] {
        authors.flatMap { author in logs[author]!.map { (author, $0) } }
    }
}

/// What `OpRegistry.capture` found wrong.
struct RegistryProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
