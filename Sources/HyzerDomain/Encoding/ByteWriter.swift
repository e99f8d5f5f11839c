import Foundation

/// Appends values in the canonical encoding: big-endian fixed-width integers, LEB128 varints
/// for lengths and counts, strings as a varint byte length and UTF-8, UUIDs as 16 raw bytes.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// One byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// 4 bytes, big-endian.
    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// 8 bytes, big-endian.
    public mutating func write(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// An unsigned LEB128 varint.
    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// One byte: 1 for true, 0 for false.
    public mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// The bytes as they are, with no length before them.
    public mutating func write<Bytes: Collection<UInt8>>(raw: Bytes) { bytes.append(contentsOf: raw) }

    /// A varint length, then the bytes.
    public mutating func write<Bytes: Collection<UInt8>>(lengthPrefixed raw: Bytes) {
        writeVarint(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }

    /// The string's UTF-8 bytes after their varint length.
    public mutating func write(_ value: String) { write(lengthPrefixed: Array(value.utf8)) }

    /// A participant id as its text (length-prefixed UTF-8).
    public mutating func write(_ value: ParticipantID) { write(value.description) }

    /// The UUID's 16 bytes.
    public mutating func write(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    /// The author id's 32 bytes.
    public mutating func write(_ value: AuthorID) { bytes.append(contentsOf: value.bytes) }

    /// A clock reading: its milliseconds (8 bytes), then its counter (4 bytes), big-endian.
    public mutating func write(_ value: HLCTimestamp) {
        write(value.physicalMilliseconds)
        write(value.counter)
    }
}
