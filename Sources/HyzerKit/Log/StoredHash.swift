import Foundation
import GRDB
import HyzerDomain

/// What the log keeps of each op's hash (docs/store.md, "Hash checkpoints"): the whole 32 bytes
/// on an op that carries its signature and on every 64th op of a log (a checkpoint), the first
/// 16 bytes on every other. The prefix names the op (entity ids are its first 16 bytes, version
/// vectors carry its first 8); the whole hash of any op is rebuilt from the checkpoint below it,
/// hashing at most 63 tails.
enum StoredHash {
    /// Every op whose sequence is a multiple of this keeps its whole hash.
    static let checkpointInterval: UInt64 = 64
    /// The bytes kept of the hash of an op that is neither signed nor a checkpoint.
    static let prefixBytes = 16

    /// Whether the log keeps the whole hash of op `sequence` when the op carries no signature.
    static func isCheckpoint(_ sequence: UInt64) -> Bool { sequence % checkpointInterval == 0 }

    /// The bytes of `op`'s hash that the log stores.
    static func stored(_ op: SignedOp) -> ArraySlice<UInt8> {
        op.signature != nil || isCheckpoint(op.sequence) ? op.hash[...] : op.hash.prefix(prefixBytes)
    }

    /// The whole hash of op `sequence` of the author `key`, whose `authors` row is `row`: read
    /// when the log keeps it, else rebuilt along the chain from the nearest op below whose whole
    /// hash is kept (the checkpoint, at worst, or the start of the log). `nil` when the op is
    /// not held, or when a rebuilt hash does not start with the bytes stored (a damaged store,
    /// which `verify` reports); zeros for sequence 0.
    static func whole(of sequence: UInt64, author key: AuthorID, row: Int64, _ db: Database) throws -> [UInt8]? {
        if sequence == 0 { return SignedOp.noPreviousHash }
        let floor = max(sequence - sequence % checkpointInterval, 1)
        let ops = try LoggedOp.range(author: row, from: floor, through: sequence, descending: true, db)
        // From the op asked for down to the first whole hash: usually the op itself.
        var above: [(stored: [UInt8], tail: [UInt8])] = []
        var base: [UInt8]?
        var expected = sequence
        while let op = try ops.next() {
            guard op.sequence == expected else { return nil }
            if op.storedHash.count == SignedOp.noPreviousHash.count {
                base = op.storedHash
                break
            }
            above.append((op.storedHash, op.tail))
            expected -= 1
        }
        // With no whole hash read, the chain starts at the log's start (the ops below 64 were all read).
        if base == nil, expected == 0 { base = SignedOp.noPreviousHash }
        guard var hash = base else { return nil }
        for (offset, op) in above.reversed().enumerated() {
            let opSequence = sequence - UInt64(above.count - 1 - offset)
            hash = SignedOp.hash(author: key, sequence: opSequence, previousHash: hash, tail: op.tail)
            guard hash.starts(with: op.stored) else { return nil }
        }
        return hash
    }
}
