import Foundation

/// Appends values in the canonical encoding: big-endian fixed-width integers, LEB128 varints
/// for lengths and counts, strings as a varint byte length and UTF-8, UUIDs as 16 raw bytes.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }

    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

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

    public mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    public mutating func write<Bytes: Collection<UInt8>>(raw: Bytes) { bytes.append(contentsOf: raw) }

    /// A varint length, then the bytes.
    public mutating func write<Bytes: Collection<UInt8>>(lengthPrefixed raw: Bytes) {
        writeVarint(UInt64(raw.count))
        bytes.append(contentsOf: raw)
    }

    public mutating func write(_ value: String) { write(lengthPrefixed: Array(value.utf8)) }

    public mutating func write(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) }
    }

    public mutating func write(_ value: AuthorID) { bytes.append(contentsOf: value.bytes) }

    public mutating func write(_ value: HLCTimestamp) {
        write(value.physicalMilliseconds)
        write(value.counter)
    }
}
