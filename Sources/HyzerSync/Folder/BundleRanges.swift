import HyzerDomain
import HyzerKit

/// The ops a bundle of ours holds: per author, the first and last sequence numbers.
struct BundleRanges {
    struct Range {
        let author: AuthorID
        let first: UInt64
        let last: UInt64
    }

    let ranges: [Range]

    init(_ segments: [AuthorSegment]) {
        ranges = segments.map { Range(author: $0.author, first: $0.firstSequence, last: $0.lastSequence) }
    }

    init?(encoded bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let count = try? reader.readCount(maximum: 1_000_000) else { return nil }
        var ranges: [Range] = []
        for _ in 0..<count {
            guard let author = try? reader.readAuthorID(), let first = try? reader.readVarint(), let last = try? reader.readVarint()
            else { return nil }
            ranges.append(Range(author: author, first: first, last: last))
        }
        self.ranges = ranges
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.writeVarint(UInt64(ranges.count))
        for range in ranges {
            writer.write(range.author)
            writer.writeVarint(range.first)
            writer.writeVarint(range.last)
        }
        return writer.bytes
    }
}
