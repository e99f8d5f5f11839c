import HyzerDomain

/// The last-writer-wins order of writes: `clock ‖ author ‖ sequence` as 52 bytes that SQLite
/// compares with memcmp. Greater wins. Two ops never share a stamp, so the order is total.
enum Stamp {
    static func bytes(clock: HLCTimestamp, author: AuthorID, sequence: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: 52)
        writer.write(clock)
        writer.write(author)
        writer.write(sequence)
        return writer.bytes
    }

    /// The stamp of seeded state: below every op's.
    static let seed = [UInt8](repeating: 0, count: 52)
}
