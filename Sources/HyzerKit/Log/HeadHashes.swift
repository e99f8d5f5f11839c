import HyzerDomain
import Synchronization

/// Each author's head as a delta last read it: its sequence and whole hash. A delta above what
/// a peer holds starts from the op after the peer's head, and needs that op's whole hash as its
/// previous hash; once a later op is written, the log keeps only the first bytes of it (docs/
/// store.md, "Hash checkpoints"), and rebuilding it hashes up to 63 ops from the checkpoint
/// below. A live peer is usually one op behind, at the head the last delta read: kept here, that
/// hash costs nothing (docs/performance.md, "Live changes").
///
/// Only committed state is recorded (a delta reads from a snapshot, or after a commit), and a
/// held op never changes: a kept hash is true for as long as the store is open. One entry per
/// author the store holds.
final class HeadHashes: Sendable {
    private let heads = Mutex<[AuthorID: (sequence: UInt64, hash: [UInt8])]>([:])

    /// The whole hash of `author`'s op `sequence`, when it is the head kept.
    func hash(of author: AuthorID, at sequence: UInt64) -> [UInt8]? {
        heads.withLock { heads in heads[author].flatMap { $0.sequence == sequence ? $0.hash : nil } }
    }

    /// Keeps `hash` as the whole hash of `author`'s op `sequence`, its head as read.
    func record(_ author: AuthorID, head sequence: UInt64, hash: [UInt8]) {
        guard hash.count == SignedOp.noPreviousHash.count else { return }
        heads.withLock { $0[author] = (sequence, hash) }
    }
}
