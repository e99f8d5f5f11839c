import Foundation
import HyzerDomain

/// A segment's ops and their hash chain, for ingest.
///
/// A chain is sequential (each op's hash covers the one before), so one author's ops cannot be
/// hashed in parallel; but they can be hashed ahead of the inserts that store them. Ingest of a
/// large batch hands its chains to `SegmentChain.hashing(_:)`, which hashes them in order on a
/// thread of their own while the writer stores the ops already hashed; `hash(at:)` waits only
/// when the writer catches up (docs/store.md, "Hash chains on the second core"). A small batch
/// is hashed on the spot: a live score does not pay a thread's wake-up. Nothing about what
/// counts changes: the signature of the segment's last op is still checked before its
/// savepoint is released.
final class SegmentChain: @unchecked Sendable {
    /// Below this many ops in a batch, chains are hashed on the writer's thread.
    static let opsHashedElsewhereMin = 512

    /// The segment whose chain this is.
    let segment: AuthorSegment
    /// The ops' hashes, 32 bytes each; written by the hasher below `ready`, read below it.
    private let hashes: UnsafeMutablePointer<UInt8>
    private let progress = NSCondition()
    /// How many hashes are written (guarded by `progress`).
    private var ready = 0
    /// The hasher stops when the writer no longer needs the rest (guarded by `progress`).
    private var abandoned = false
    /// How many hashes the writer knows are written: it takes the lock only past them.
    private var readyKnown = 0
    /// Whether the last op's signature was checked and holds.
    private var verified = false
    /// The hash `hash(at:)` returned last, and its offset: the writer reads each op's hash
    /// twice, as that op's and as the next one's previous hash (one array for both).
    private var lastRead: (offset: Int, hash: [UInt8]) = (-1, [])

    /// The chain of `segment`, not yet hashed.
    init(_ segment: AuthorSegment) {
        self.segment = segment
        hashes = .allocate(capacity: max(segment.tails.count, 1) * 32)
        hashes.initialize(repeating: 0, count: max(segment.tails.count, 1) * 32)
    }

    deinit { hashes.deallocate() }

    /// The number of ops.
    var count: Int { segment.tails.count }

    /// Chains of `segments`, hashed on a thread of their own when they hold enough ops to be
    /// worth the hand-off, else here and now. `abandon` them when the rest will not be read.
    ///
    /// A thread, not a dispatch queue: the writer waits on the hasher, and a queue's workers
    /// may all be taken by callers waiting on the writer.
    static func hashing(_ segments: [AuthorSegment]) -> [SegmentChain] {
        let chains = segments.map(SegmentChain.init)
        if segments.reduce(0, { $0 + $1.tails.count }) >= opsHashedElsewhereMin {
            let hasher = Thread { for chain in chains { chain.hashAll() } }
            hasher.name = "segment-chains"
            hasher.start()
        } else {
            for chain in chains { chain.hashAll() }
        }
        return chains
    }

    /// Hashes the whole chain; a segment whose header does not check is left unhashed (ingest
    /// refuses it before reading a hash).
    func hashAll() {
        guard (try? segment.checkHeader()) != nil else {
            publish(count)
            return
        }
        var previous = segment.previousHash
        var offset = 0
        while offset < count {
            let end = min(offset + 256, count)
            for index in offset..<end {
                let hash = SignedOp.hash(
                    author: segment.author, sequence: segment.firstSequence + UInt64(index), previousHash: previous,
                    tail: segment.tails[index])
                hash.withUnsafeBufferPointer { (hashes + index * 32).update(from: $0.baseAddress!, count: 32) }
                previous = hash
            }
            offset = end
            guard publish(offset) else { return }
        }
    }

    /// Marks the first `written` hashes readable; `false` once the chain is abandoned.
    @discardableResult
    private func publish(_ written: Int) -> Bool {
        progress.lock()
        defer { progress.unlock() }
        ready = written
        progress.broadcast()
        return !abandoned
    }

    /// Tells the hasher the rest of this chain will not be read.
    func abandon() {
        progress.lock()
        abandoned = true
        progress.unlock()
    }

    /// The hash of the op at `offset`, once hashed (`segment.checkHeader()` passed).
    func hash(at offset: Int) -> [UInt8] {
        precondition(offset >= 0 && offset < count, "a hash within the segment")
        if offset >= readyKnown {
            progress.lock()
            while ready <= offset { progress.wait() }
            readyKnown = ready
            progress.unlock()
        }
        if lastRead.offset != offset { lastRead = (offset, Array(UnsafeBufferPointer(start: hashes + offset * 32, count: 32))) }
        return lastRead.hash
    }

    /// The op at `offset`, with its hash; the last one carries the segment's signature.
    func op(at offset: Int) -> SignedOp {
        SignedOp(
            author: segment.author, sequence: segment.firstSequence + UInt64(offset),
            previousHash: offset == 0 ? segment.previousHash : hash(at: offset - 1), tail: segment.tails[offset],
            hash: hash(at: offset), signature: offset == count - 1 ? segment.lastSignature : nil)
    }

    /// The hash of op `sequence`, which lies within the segment or is the one just before it.
    func hash(ofSequence sequence: UInt64) -> [UInt8] {
        sequence == segment.firstSequence - 1 ? segment.previousHash : hash(at: Int(sequence - segment.firstSequence))
    }

    /// Checks the last op's signature, waiting for the whole chain; once is enough.
    func verifySignature() throws(IngestError) {
        guard !verified else { return }
        try segment.verifySignature(of: op(at: count - 1))
        verified = true
    }
}
